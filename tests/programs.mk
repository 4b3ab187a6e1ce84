# SPDX-License-Identifier: GPL-2.0
#
# Included by the Makefile of every test program: where things are, the
# compiler for ARCH and the flags they all build with.
#
#   ARCH=arm64 (default)  static binaries for the guest, in build/arm64/bin
#   ARCH=host             for this machine, in build/host/bin
#
#   KDIR=/path/to/linux   the kernel tree whose kselftest headers to use
#                         (default: the test bed's extracted 7.2 tree)
#
# The kselftest harness is used where it lives, in KDIR's
# tools/testing/selftests; libdrm is Debian's (libdrm-dev, and
# libdrm-dev:arm64 for the guest).

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
ARCH ?= arm64
CROSS_COMPILE ?= aarch64-linux-gnu-
HOSTCC ?= gcc
# The kernel tree the kselftest headers (kselftest.h, kselftest_harness.h)
# come from, by include path: a board's (KDIR=/path/to/linux, a source
# tree or an O= build tree with its "source" link), else the test bed's.
# KSRC is the older name.
KDIR ?= $(or $(KSRC),$(TOP)/build/src/7.2)
SELFTESTS := $(firstword $(wildcard $(KDIR)/tools/testing/selftests \
	$(KDIR)/source/tools/testing/selftests) $(KDIR)/tools/testing/selftests)
UAPI := $(TOP)/include/uapi/linux/cmabuf.h
IMPORTER_H := $(TOP)/tests/importer/cmabuf_importer.h

ifeq ($(ARCH),arm64)
CC := $(CROSS_COMPILE)gcc
OUT := $(TOP)/build/arm64/bin
LIBDRM := /usr/lib/aarch64-linux-gnu/libdrm.a
else
CC := $(HOSTCC)
OUT := $(TOP)/build/host/bin
LIBDRM := /usr/lib/x86_64-linux-gnu/libdrm.a
endif

# The test library every program links (tests/lib): the device's ioctls,
# its sysfs and CMA's debugfs and sysfs counters, fill and check patterns,
# dma-buf syncs, dma-heap allocations, fdinfo, module load and unload,
# snapshots of every instance. TESTLIB_DRM: vgem, for the programs that
# link libdrm.
LIB := $(TOP)/tests/lib
TESTLIB := $(LIB)/cmabuf_test_util.c $(LIB)/reliability_util.c
TESTLIB_H := $(LIB)/cmabuf_test_util.h $(LIB)/reliability_util.h
TESTLIB_DRM := $(LIB)/vgem_util.c
TESTLIB_DRM_H := $(LIB)/vgem_util.h

# Warnings are errors: the compiler is the one install-deps.sh installs.
CFLAGS := -static -Wall -Wextra -Werror -O2 -I$(TOP)/include/uapi -I$(SELFTESTS) \
	  -I$(LIB)
DRM_CFLAGS := -I/usr/include/libdrm

# 32-bit arm programs for the arm64 guest, which runs them through the
# kernel's compat layer (CONFIG_COMPAT). The harness casts pointers to
# uintmax_t when it compares them, which warns on 32 bits.
COMPAT_CC := arm-linux-gnueabihf-gcc
COMPAT_CFLAGS := $(CFLAGS) -Wno-pointer-to-int-cast

.PHONY: all clean

# The default goal; each Makefile gives it its programs.
all:

# What a program depends on from outside the repository, with the fix when
# it is missing (these rules run only then).
$(SELFTESTS)/%.h:
	@echo "no $@: KDIR=$(KDIR) is no kernel source tree (make kernels unpacks the test bed's)"; exit 1
$(LIBDRM):
	@echo "no $@: install libdrm-dev (make deps)"; exit 1
