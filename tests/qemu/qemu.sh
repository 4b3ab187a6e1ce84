# SPDX-License-Identifier: GPL-2.0
# The emulated machine, shared by the device tree dump and every boot; sourced.

QEMU=${QEMU:-qemu-system-aarch64}
QEMU_MEM=4G
QEMU_SMP=${QEMU_SMP:-2}
# pauth-impdef: the architected pointer-authentication algorithm costs a lot
# under TCG; the implementation-defined one behaves the same for the guest.
QEMU_MACHINE=(-M virt -cpu max,pauth-impdef=on -smp "$QEMU_SMP" -m "$QEMU_MEM" -nic none)
QEMU_CMDLINE="console=ttyAMA0 cma=128M panic=-1 loglevel=7"
