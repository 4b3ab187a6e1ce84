# SPDX-License-Identifier: GPL-2.0
# The emulated machine, shared by the device tree dump and every boot; sourced.

QEMU=${QEMU:-qemu-system-aarch64}
QEMU_MEM=4G
QEMU_SMP=${QEMU_SMP:-2}

# QEMU's edu PCI device, a DMA engine (tests/edu drives it), twice on the
# PCIe host bridge behind an SMMUv3: "PCI-NAME=BITS", BITS its DMA mask.
# 00:02.0 keeps edu's own 28 bits, too few for RAM, which starts at 1 GiB.
# The guest gets the list as CMABUF_EDU_BITS, for cmabuf_edu.ko's dma_bits.
QEMU_EDU_BITS=0000:00:02.0=28,0000:00:03.0=40

# -device arguments for QEMU_EDU_BITS.
qemu_edu_devices() {
	local entry name bits
	for entry in ${QEMU_EDU_BITS//,/ }; do
		name=${entry%%=*}
		bits=${entry#*=}
		printf -- '-device\nedu,addr=%s,dma_mask=0x%x\n' "${name#*:*:}" \
			$(((1 << bits) - 1))
	done
}

# pauth-impdef: the architected pointer-authentication algorithm costs a lot
# under TCG; the implementation-defined one behaves the same for the guest.
QEMU_MACHINE=(-M virt,iommu=smmuv3 -cpu max,pauth-impdef=on -smp "$QEMU_SMP"
	-m "$QEMU_MEM" -nic none)
mapfile -t -O ${#QEMU_MACHINE[@]} QEMU_MACHINE < <(qemu_edu_devices)
QEMU_CMDLINE="console=ttyAMA0 cma=128M panic=-1 loglevel=7 CMABUF_EDU_BITS=$QEMU_EDU_BITS"
