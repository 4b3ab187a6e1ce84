# SPDX-License-Identifier: GPL-2.0
#
# cmabuf: physically contiguous dma-bufs from CMA.
#
# On the machine, or for the board, that runs the driver:
#   make                     build cmabuf.ko against KDIR (default: the
#                            running kernel's headers; KERNEL_SRC as Yocto
#                            sets it); TESTS=1 adds the test modules and the
#                            in-kernel benchmark, CMABUF_BENCH=1 the benchmark
#   make modules_install     install it under INSTALL_MOD_PATH, run depmod
#   make install             cmabufctl, its man page, the uapi header, the
#                            udev rule and the modprobe.d example under
#                            DESTDIR, PREFIX (/usr/local) and SYSCONFDIR (/etc)
#   make uninstall           remove what make install installed
#   dkms add .               the same through DKMS (dkms.conf)
#
# The test bed (QEMU arm64, kernels built here):
#   make module KERNEL=7.2   build the modules for a test-bed kernel
#   make kernels             fetch, patch and build the test-bed kernels
#   make userspace           cmabufctl (host and arm64) and the test programs
#   make check               build 7.2 and 7.2-debug, boot them and Debian's 6.1,
#                            6.12 (4 and 16 KiB pages) and 7.2, run every test
#   make check-full          make check, the test bed's 6.12 and the 16/64 KiB
#                            kernels, every stock image, the long fuzz
#   make check-stock         the same on Debian's own kernels, as Debian ships
#                            them (kernel/stock-images): downloads, no kernel build
#   make shell KERNEL=7.2    interactive console of a test-bed guest
#   make lint                checkpatch --strict, sparse and W=1 on both kernels
#   make bench               before (6.12) / after (7.2) report in build/bench/,
#                            and cmabufctl bench on the stock images beside 7.2
#   make bench-stock         that stock part alone, build/bench/stock.{md,json}
#   make bench-load          allocation under memory load, build/bench/load/
#   make demo                boot 7.2, allocate, share, short bench against 6.12
#   make docs                rewrite docs/benchmarks.md's figures from the runs
#   make soak                the fuzzer for 10 000 000 operations on 7.2-debug

KDIR ?= $(or $(KERNEL_SRC),/lib/modules/$(shell uname -r)/build)
KERNEL ?= 7.2
KERNELS ?= 7.2 7.2-debug stock-6.1 stock-6.12 stock-6.12-16k stock-7.2
FULL_KERNELS ?= 7.2 6.12 7.2-debug 7.2-16k 7.2-64k $(STOCK_KERNELS)
STOCK_KERNELS ?= $(shell awk '!/^\#/ && NF { print $$1 }' kernel/stock-images)
# The stock images "make bench" measures beside 7.2: those "make check" boots.
BENCH_STOCK = $(filter stock-%,$(KERNELS))
CROSS_COMPILE ?= aarch64-linux-gnu-
BUILD := $(CURDIR)/build
DEPMOD ?= depmod

PREFIX ?= /usr/local
INCLUDEDIR ?= $(PREFIX)/include
DOCDIR ?= $(PREFIX)/share/doc/cmabuf
SYSCONFDIR ?= /etc
UDEVRULESDIR ?= $(SYSCONFDIR)/udev/rules.d
MODPROBEDIR ?= $(SYSCONFDIR)/modprobe.d
export PREFIX DOCDIR

# The module sources: copied per kernel so that builds for different
# kernels never share object files.
MODULE_SRCS := $(wildcard VERSION Kbuild drivers include tests/importer tests/edu tests/kunit)

# One line that says how to get a kernel build tree, instead of make's own.
kdir = $(if $(wildcard $(KDIR)/Makefile),$(KDIR),$(error cmabuf: no kernel \
	build tree at $(KDIR): install the running kernel's headers (Debian: \
	linux-headers-$(shell uname -r)) or set KDIR to your board's kernel build tree))

.PHONY: all modules modules_install install uninstall clean module kernels \
	userspace check check-stock check-full shell lint bench bench-stock \
	bench-stock-images bench-load demo soak deps docs

all: modules

modules:
	$(MAKE) -C $(kdir) M=$(CURDIR) modules

# The kernel runs depmod only when its tree has a System.map, which headers
# packages lack; Yocto and Buildroot want the module found by modprobe.
modules_install:
	$(MAKE) -C $(kdir) M=$(CURDIR) modules_install
	$(DEPMOD) -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) \
		$(shell cat $(KDIR)/include/config/kernel.release)

install:
	$(MAKE) -C userspace install
	install -D -m 0644 include/uapi/linux/cmabuf.h $(DESTDIR)$(INCLUDEDIR)/linux/cmabuf.h
	install -D -m 0644 config/udev/60-cmabuf.rules $(DESTDIR)$(UDEVRULESDIR)/60-cmabuf.rules
	install -D -m 0644 config/modprobe.d/cmabuf.conf $(DESTDIR)$(MODPROBEDIR)/cmabuf.conf
	install -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -D -m 0644 docs/importers.md $(DESTDIR)$(DOCDIR)/importers.md
	install -D -m 0644 CHANGELOG.md $(DESTDIR)$(DOCDIR)/CHANGELOG.md
	install -D -m 0644 LICENSE $(DESTDIR)$(DOCDIR)/LICENSE

uninstall:
	$(MAKE) -C userspace uninstall
	rm -f $(DESTDIR)$(INCLUDEDIR)/linux/cmabuf.h \
		$(DESTDIR)$(UDEVRULESDIR)/60-cmabuf.rules \
		$(DESTDIR)$(MODPROBEDIR)/cmabuf.conf \
		$(DESTDIR)$(DOCDIR)/README.md $(DESTDIR)$(DOCDIR)/CHANGELOG.md \
		$(DESTDIR)$(DOCDIR)/importers.md \
		$(DESTDIR)$(DOCDIR)/LICENSE
	-rmdir $(DESTDIR)$(DOCDIR)

clean:
	$(if $(wildcard $(KDIR)/Makefile),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)
	$(MAKE) -C userspace clean

deps:
	bash tests/qemu/install-deps.sh

kernels:
	bash tests/qemu/build-kernels.sh $(filter-out stock-%,$(KERNELS))

# The test bed always builds the test modules, and checks it did.
module:
	@test -f $(BUILD)/kernel/$(KERNEL)/Module.symvers || \
		{ echo "kernel $(KERNEL) is not built: run 'make kernels'"; exit 1; }
	mkdir -p $(BUILD)/module/$(KERNEL)
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--relative $(MODULE_SRCS) $(BUILD)/module/$(KERNEL)/
	$(MAKE) -C $(BUILD)/kernel/$(KERNEL) M=$(BUILD)/module/$(KERNEL) \
		ARCH=arm64 CROSS_COMPILE=$(CROSS_COMPILE) W=1 TESTS=1 modules
	test -f $(BUILD)/module/$(KERNEL)/tests/kunit/cmabuf_kunit.ko
	test -f $(BUILD)/module/$(KERNEL)/tests/importer/cmabuf_importer.ko
	test -f $(BUILD)/module/$(KERNEL)/tests/edu/cmabuf_edu.ko
	# And as a user of the stock kernel (no export patches) would build
	# it, where that kernel exports enough; and as for a kernel that
	# exports nothing of CMA (Debian's 6.12: DMA only): for the kernels
	# whose guests load them (the stock and stock-nocma suites).
	if CMABUF_FULL=1 bash tests/qemu/boot.sh --list $(KERNEL) | grep -qw stock; then \
		bash kernel/build-stock-module.sh $(KERNEL) $(BUILD)/module-stock/$(KERNEL) \
			>$(BUILD)/module-stock-$(KERNEL).log 2>&1 || test $$? -eq 2 || \
			{ cat $(BUILD)/module-stock-$(KERNEL).log; exit 1; }; \
		bash kernel/build-stock-module.sh $(KERNEL) $(BUILD)/module-nocma/$(KERNEL) nocma \
			>$(BUILD)/module-nocma-$(KERNEL).log 2>&1 || test $$? -eq 2 || \
			{ cat $(BUILD)/module-nocma-$(KERNEL).log; exit 1; }; \
	fi

# The test bed's builds stop at a warning (a user's compiler may warn more).
userspace:
	$(MAKE) -C userspace WERROR=1
	$(MAKE) -C userspace WERROR=1 ARCH=arm64
	$(MAKE) -C tests ARCH=arm64

check:
	bash tests/qemu/check.sh $(KERNELS)

check-stock:
	bash tests/qemu/check.sh $(STOCK_KERNELS)

check-full:
	CMABUF_FULL=1 bash tests/qemu/check.sh $(FULL_KERNELS)

shell:
	bash tests/qemu/boot.sh --shell $(KERNEL)

lint:
	bash tests/lint.sh

bench:
	bash tests/qemu/bench.sh

bench-stock:
	bash tests/qemu/bench.sh --stock

# For tests/qemu/bench-stock.sh: the list above, with make's overrides.
bench-stock-images:
	@echo $(BENCH_STOCK)

bench-load:
	bash tests/qemu/bench-load.sh

demo:
	bash tests/qemu/bench.sh --demo

soak:
	bash tests/qemu/soak.sh

docs:
	python3 docs/gen-benchmarks.py
