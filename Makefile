# SPDX-License-Identifier: GPL-2.0
#
# cmabuf: physically contiguous dma-bufs from CMA.
#
#   make                     build cmabuf.ko against KDIR (the running kernel)
#   make module KERNEL=7.2   build the modules for a test-bed kernel
#   make kernels             fetch, patch and build the test-bed kernels
#   make userspace           cmabufctl and the test programs, host and arm64
#   make check               build everything, boot every kernel, run every test
#   make shell KERNEL=7.2    interactive console of a test-bed guest
#   make lint                checkpatch --strict, sparse and W=1 on both kernels
#   make bench               before (6.12) / after (7.2) report in build/bench/
#   make demo                boot 7.2, allocate, share, short bench against 6.12
#   make soak                the fuzzer for 10 000 000 operations on 7.2-debug

KDIR ?= /lib/modules/$(shell uname -r)/build
KERNEL ?= 7.2
KERNELS ?= 7.2 6.12 7.2-debug
CROSS_COMPILE ?= aarch64-linux-gnu-
BUILD := $(CURDIR)/build

# The module sources: copied per kernel so that builds for different
# kernels never share object files.
MODULE_SRCS := $(wildcard Kbuild drivers include tests/importer tests/edu tests/kunit)

.PHONY: all modules clean module kernels userspace check shell lint bench demo soak deps

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace clean

deps:
	bash tests/qemu/install-deps.sh

kernels:
	bash tests/qemu/build-kernels.sh $(KERNELS)

module:
	@test -f $(BUILD)/kernel/$(KERNEL)/Module.symvers || \
		{ echo "kernel $(KERNEL) is not built: run 'make kernels'"; exit 1; }
	mkdir -p $(BUILD)/module/$(KERNEL)
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--relative $(MODULE_SRCS) $(BUILD)/module/$(KERNEL)/
	$(MAKE) -C $(BUILD)/kernel/$(KERNEL) M=$(BUILD)/module/$(KERNEL) \
		ARCH=arm64 CROSS_COMPILE=$(CROSS_COMPILE) W=1 modules
	# And as a user of the stock kernel (no export patches) would build
	# it, where that kernel exports enough (7.2, not 6.12).
	bash kernel/build-stock-module.sh $(KERNEL) $(BUILD)/module-stock/$(KERNEL) \
		>$(BUILD)/module-stock-$(KERNEL).log 2>&1 || test $$? -eq 2 || \
		{ cat $(BUILD)/module-stock-$(KERNEL).log; exit 1; }

userspace:
	$(MAKE) -C userspace
	$(MAKE) -C userspace ARCH=arm64
	$(MAKE) -C tests ARCH=arm64

check:
	bash tests/qemu/check.sh $(KERNELS)

shell:
	bash tests/qemu/boot.sh --shell $(KERNEL)

lint:
	bash tests/lint.sh

bench:
	bash tests/qemu/bench.sh

demo:
	bash tests/qemu/bench.sh --demo

soak:
	bash tests/qemu/soak.sh
