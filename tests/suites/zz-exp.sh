#!/bin/sh
echo "TAP version 13"
t() { s=$(cut -d' ' -f1 /proc/uptime); "$@"; e=$(cut -d' ' -f1 /proc/uptime); echo "# $(awk -v s=$s -v e=$e 'BEGIN{print e-s}') s: $*"; }
t cmabuf_load start --socket /tmp/s --area general-pool --free-below 16M --room 192M --log /tmp/l > /tmp/o; sed 's/"zones".*//' /tmp/o; cat /tmp/l
cmabuf_load status
t cmabufctl bench load-64m -n 1 -s frozen,cma-heap --prepare "cmabuf_load refill --socket /tmp/s >>/tmp/r"
sed 's/"meminfo".*//; s/.*"fill"/fill/' /tmp/r
t cmabuf_load set --socket /tmp/s --churn 32M --splice 256,200,100 > /dev/null
sleep 3
t cmabufctl bench load-64m -n 1 -s frozen --json --prepare "cmabuf_load refill --socket /tmp/s >/tmp/r" | head -c 1500; echo
sed 's/"meminfo".*//; s/.*"fill"/fill/' /tmp/r
t cmabuf_load stop --socket /tmp/s > /tmp/o; sed 's/.*"churn"/churn/' /tmp/o
echo "1..0 # SKIP experiment"
