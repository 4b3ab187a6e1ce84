/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The uapi header, made includable next to glibc's <fcntl.h>.
 *
 * <linux/cmabuf.h> includes <linux/fcntl.h> for O_CLOEXEC and O_ACCMODE,
 * whose struct flock clashes with the one of glibc's <fcntl.h>. glibc
 * defines the same O_* flags, so its header is taken and the kernel's is
 * marked as already seen.
 */
#ifndef CMABUFCTL_CMABUF_UAPI_H
#define CMABUFCTL_CMABUF_UAPI_H

#include <fcntl.h>
#ifndef _LINUX_FCNTL_H
#define _LINUX_FCNTL_H
#endif
#include <linux/cmabuf.h>

#endif /* CMABUFCTL_CMABUF_UAPI_H */
