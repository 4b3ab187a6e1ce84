// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_fuzz: the model of what the process holds.
 *
 * A buffer lives while any fd, mapping or importer hold refers to it; the
 * kernel frees it before the call that dropped the last reference returns
 * (the last fput runs as task work on the way back to userspace), so the
 * model's live buffers per instance must match the driver's counters after
 * every operation.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "fuzz.h"

int fz_buf_new(struct fz *f, int inst, __u64 size, __u32 strategy,
	       __u32 align)
{
	struct fz_buf *b;
	int i;

	for (i = 0; i < FZ_MAX_BUFS; i++) {
		b = &f->bufs[i];
		if (b->used)
			continue;
		memset(b, 0, sizeof(*b));
		b->used = true;
		b->id = ++f->next_id;
		b->inst = inst;
		b->size = size;
		b->strategy = strategy;
		b->align = align;
		return i;
	}
	return -1;
}

/* Forget a buffer nothing refers to any more: the kernel has freed it. */
void fz_buf_put(struct fz *f, int b)
{
	struct fz_buf *buf = &f->bufs[b];

	if (buf->fds + buf->maps + buf->holds == 0)
		buf->used = false;
}

void fz_fd_set(struct fz *f, int fd, enum fz_fd_kind kind, int buf, int inst,
	       int accmode)
{
	struct fz_fd *e;

	if (fd < 0 || fd >= FZ_MAX_FDS)
		return;
	e = &f->fds[fd];
	e->kind = kind;
	e->buf = buf;
	e->inst = inst;
	e->accmode = accmode;
	if (kind == FZ_FD_BUF)
		f->bufs[buf].fds++;
	if (kind == FZ_FD_BUF || kind == FZ_FD_SYNC)
		f->open++;
}

/* @fd was closed, by close() or by dup2() over it. */
void fz_fd_closed(struct fz *f, int fd)
{
	struct fz_fd *e;

	if (fd < 0 || fd >= FZ_MAX_FDS)
		return;
	e = &f->fds[fd];
	if (e->kind == FZ_FD_BUF || e->kind == FZ_FD_SYNC)
		f->open--;
	if (e->kind == FZ_FD_BUF) {
		f->bufs[e->buf].fds--;
		fz_buf_put(f, e->buf);
	}
	memset(e, 0, sizeof(*e));
}

/* A random fd of @kind, -1 when there is none. */
int fz_pick_fd(struct fz *f, enum fz_fd_kind kind)
{
	unsigned int seen = 0;
	int fd, pick = -1;

	for (fd = 0; fd < FZ_MAX_FDS; fd++) {
		if (f->fds[fd].kind != kind)
			continue;
		if (!rel_below(&f->rng, ++seen))
			pick = fd;
	}
	return pick;
}

/* An fd number that is closed: the model says nobody holds it. */
static int fz_closed_fd(struct fz *f)
{
	int fd, tries;

	for (tries = 0; tries < 16; tries++) {
		fd = rel_below(&f->rng, FZ_DUP_BASE + FZ_DUP_SPAN);
		if (f->fds[fd].kind == FZ_FD_NONE)
			return fd;
	}
	return FZ_MAX_FDS - 1;
}

/*
 * Any fd value, for arguments that name a dma-buf: mostly one of ours,
 * then foreign buffers, other open files, closed numbers and nonsense.
 */
int fz_pick_any_fd(struct fz *f)
{
	static const enum fz_fd_kind others[] = {
		FZ_FD_DEV, FZ_FD_IMPORTER, FZ_FD_HEAP, FZ_FD_SYNC, FZ_FD_OTHER,
	};
	unsigned int roll = rel_below(&f->rng, 100);
	int fd;

	if (roll < 68) {
		fd = fz_pick_fd(f, FZ_FD_BUF);
		if (fd >= 0)
			return fd;
	}
	if (roll < 80) {
		fd = fz_pick_fd(f, others[rel_below(&f->rng, 5)]);
		if (fd >= 0)
			return fd;
	}
	if (roll < 90)
		return fz_closed_fd(f);
	switch (rel_below(&f->rng, 5)) {
	case 0:
		return -1;
	case 1:
		return 0x7fffffff;
	case 2:
		return INT_MIN;
	case 3:
		return FZ_MAX_FDS + rel_below(&f->rng, 1 << 20);
	default:
		return (int)rel_rand(&f->rng);
	}
}

/* A random live buffer, -1 when there is none. */
int fz_pick_buf(struct fz *f, bool foreign_ok)
{
	unsigned int seen = 0;
	int i, pick = -1;

	for (i = 0; i < FZ_MAX_BUFS; i++) {
		if (!f->bufs[i].used || (!foreign_ok && f->bufs[i].inst < 0))
			continue;
		if (!rel_below(&f->rng, ++seen))
			pick = i;
	}
	return pick;
}

/* Some fd of buffer @b, -1 when only mappings or holds keep it. */
int fz_buf_fd(struct fz *f, int b)
{
	int fd;

	for (fd = 0; fd < FZ_MAX_FDS; fd++)
		if (f->fds[fd].kind == FZ_FD_BUF && f->fds[fd].buf == b)
			return fd;
	return -1;
}

/* What the first word of @page of @b holds, by the model. */
__u64 fz_page_word(const struct fz *f, const struct fz_buf *b, __u64 page)
{
	unsigned int i;

	for (i = 0; i < b->nmarks; i++)
		if (b->marks[i].page == page)
			return b->marks[i].val;
	if (b->pattern)
		return cmabuf_importer_pattern(b->seed, page * f->page);
	return 0;
}

/* Remember that @page of @b now starts with @val; false when no room. */
bool fz_mark(struct fz_buf *b, __u64 page, __u64 val)
{
	unsigned int i;

	for (i = 0; i < b->nmarks; i++) {
		if (b->marks[i].page == page) {
			b->marks[i].val = val;
			return true;
		}
	}
	if (b->nmarks == FZ_MAX_MARKS)
		return false;
	b->marks[b->nmarks].page = page;
	b->marks[b->nmarks].val = val;
	b->nmarks++;
	return true;
}

/* Live buffers and bytes of instance @inst, by the model. */
void fz_model_live(const struct fz *f, int inst, __u64 *buffers,
		   __u64 *bytes)
{
	int i;

	*buffers = 0;
	*bytes = 0;
	for (i = 0; i < FZ_MAX_BUFS; i++) {
		if (!f->bufs[i].used || f->bufs[i].inst != inst)
			continue;
		(*buffers)++;
		*bytes += f->bufs[i].size;
	}
}

int fz_free_map_slot(const struct fz *f)
{
	int i;

	for (i = 0; i < FZ_MAX_MAPS; i++)
		if (!f->maps[i].used)
			return i;
	return -1;
}

/* Mapping @m is gone (after munmap()). */
void fz_map_remove(struct fz *f, int m)
{
	struct fz_map *map = &f->maps[m];

	map->used = false;
	f->bufs[map->buf].maps--;
	fz_buf_put(f, map->buf);
}

/* The largest free range of an instance's area, in pages. */
int fz_inst_maxchunk(struct fz *f, int inst, __u64 *pages)
{
	unsigned long long v;
	int ret;

	ret = rel_cma_read(f->inst[inst].rel.area, "maxchunk", &v);
	*pages = v;
	return ret;
}

/* Every fd the process had before the fuzzer began is "other". */
int fz_scan_open_fds(struct fz *f)
{
	struct dirent *de;
	DIR *dir;
	int fd, self;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return errno;
	self = dirfd(dir);
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		if (fd == self || fd >= FZ_MAX_FDS)
			continue;
		if (f->fds[fd].kind == FZ_FD_NONE)
			f->fds[fd].kind = FZ_FD_OTHER;
	}
	closedir(dir);
	return 0;
}

/* Let go of everything: mappings, holds, dma-buf and sync-file fds. */
void fz_release_all(struct fz *f)
{
	struct cmabuf_importer_release rel = { 0 };
	int i, fd;

	for (i = 0; i < FZ_MAX_MAPS; i++) {
		if (!f->maps[i].used)
			continue;
		munmap((void *)f->maps[i].addr, f->maps[i].len);
		fz_map_remove(f, i);
	}
	for (i = 0; i < FZ_MAX_HOLDS; i++) {
		if (!f->holds[i].handle)
			continue;
		rel.handle = f->holds[i].handle;
		ioctl(f->imp, CMABUF_IMPORTER_IOC_RELEASE, &rel);
		if (f->holds[i].buf >= 0) {
			f->bufs[f->holds[i].buf].holds--;
			fz_buf_put(f, f->holds[i].buf);
		}
		f->holds[i].handle = 0;
		f->nholds--;
	}
	for (fd = 0; fd < FZ_MAX_FDS; fd++) {
		if (f->fds[fd].kind != FZ_FD_BUF &&
		    f->fds[fd].kind != FZ_FD_SYNC)
			continue;
		close(fd);
		fz_fd_closed(f, fd);
	}
}
