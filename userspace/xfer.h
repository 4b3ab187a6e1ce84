/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Moving bytes between a file and a buffer with CMABUF_IOC_RW, for
 * cmabufctl load and save: the transfer with its progress line and the
 * command line the two share (xfer.c), and each command's own (cmd_load.c,
 * cmd_save.c), for the commands and the unit tests.
 */
#ifndef CMABUFCTL_XFER_H
#define CMABUFCTL_XFER_H

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

/* Long options a command adds to those load and save share, at most. */
#define XFER_OWN_LONGS		8

/* Long options without a short one. */
#define XFER_OPT_HOLD		0x100
#define XFER_OPT_VERIFY		0x101
#define XFER_OPT_BUFFERED	0x102
#define XFER_OPT_INTO		0x103
#define XFER_OPT_FROM		0x104
#define XFER_OPT_SIZE		0x105

/* O_DIRECT is tried on whole blocks of this size; the rest is buffered. */
#define XFER_DIRECT_ALIGN	4096ULL

/**
 * struct xfer_opts - what the command line of load or save asked for
 * @device: the cmabuf device the ioctls go to, and new buffers come from
 * @file: the file: a regular file or a block device
 * @offset: where in the file the transfer starts
 * @length: bytes to move, 0 for the rest of the file (load) or the
 *	buffer (save)
 * @size: save: bytes of the new buffer (without --from)
 * @strategy: a %CMABUF_STRATEGY_* value for a new buffer
 * @pid: --into (load) or --from (save): the process that holds the
 *	buffer, 0 for a new buffer
 * @fd: its fd there
 * @hold: load: seconds to keep the buffer after loading it
 * @fill: save: byte a new buffer is filled with
 * @do_fill: @fill was given
 * @offset_given: --offset was given (save: the file is not truncated)
 * @buffered: through the page cache, without O_DIRECT
 * @verify: read the file back through read() and compare
 * @quiet: no progress line
 * @json: print one JSON document instead of text
 */
struct xfer_opts {
	char device[PATH_MAX];
	const char *file;
	__u64 offset;
	__u64 length;
	__u64 size;
	unsigned int strategy;
	pid_t pid;
	int fd;
	__u32 hold;
	__u8 fill;
	bool do_fill;
	bool offset_given;
	bool buffered;
	bool verify;
	bool quiet;
	bool json;
};

/**
 * struct xfer - one transfer
 * @dev: a cmabuf device, for the ioctl
 * @buf: the dma-buf
 * @fd_direct: the file opened with O_DIRECT, or -1
 * @fd_buffered: the file opened without it
 * @file_offset: where in the file it starts
 * @buf_offset: where in the buffer
 * @length: bytes to move
 * @flags: %CMABUF_RW_READ (file to buffer) or %CMABUF_RW_WRITE
 * @what: "load" or "save", for the progress line and the messages
 * @progress: print a progress line on standard error
 */
struct xfer {
	int dev;
	int buf;
	int fd_direct;
	int fd_buffered;
	__u64 file_offset;
	__u64 buf_offset;
	__u64 length;
	__u32 flags;
	const char *what;
	bool progress;
};

/**
 * struct xfer_result - how a transfer went
 * @done: bytes moved from the start (below the length at the end of the
 *	file)
 * @direct: of them, bytes moved with O_DIRECT
 * @ns: time it took
 */
struct xfer_result {
	__u64 done;
	__u64 direct;
	__u64 ns;
};

int xfer_run(const struct xfer *x, struct xfer_result *res);
int xfer_parse_holder(const char *s, pid_t *pid, int *fd);
int xfer_take_fd(pid_t pid, int fd);
int xfer_file_size(int fd, __u64 *size);
int xfer_open(const char *path, int flags, bool buffered, int *fd_direct,
	      int *fd_buffered);
int xfer_buf_size(int buf, __u64 *size);
int xfer_compare(int buf, __u64 buf_offset, int fd, __u64 file_offset,
		 __u64 length, __u64 *bad);
const char *xfer_strerror(int err);
void xfer_print(const char *what, const char *file,
		const struct xfer_result *res);
int xfer_opt(const char *cmd, int c, const char *arg, struct xfer_opts *o);
int xfer_parse(int argc, char **argv, const char *shorts,
	       const struct option *longs,
	       int (*own)(int c, char **argv, struct xfer_opts *o),
	       void (*usage)(FILE *fp), struct xfer_opts *o);
int load_parse(int argc, char **argv, struct xfer_opts *o);
int save_parse(int argc, char **argv, struct xfer_opts *o);

#endif /* CMABUFCTL_XFER_H */
