/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabuf_fuzz: internal interfaces.
 *
 *   cmabuf_fuzz.c   options, the operation loop, the TAP report
 *   fuzz_state.c    the model: buffers, file descriptors, mappings, holds
 *   fuzz_arena.c    where arguments live: good, read-only, cut-off and bad
 *                   addresses, and what the kernel may read or write there
 *   fuzz_judge.c    expected results (errno sets) and the verdicts
 *   fuzz_cmabuf.c   the cmabuf ioctls through raw command numbers
 *   fuzz_prepare.c  CMABUF_IOC_PREPARE, and the buffers made behind it
 *   fuzz_bench.c    the benchmark's debugfs file, request lines and reports
 *   fuzz_dmabuf.c   operations on the exported dma-bufs
 *   fuzz_import.c   the test importer and the dma-heaps
 *   fuzz_rw.c       CMABUF_IOC_RW: bytes between a tmpfs file and buffers
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <fcntl.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/cmabuf.h>

#include "cmabuf_importer.h"
#include "reliability_util.h"

#define FZ_MAX_BUFS		96	/* buffers alive at once */
#define FZ_MAX_FDS		1024	/* fd numbers the model tracks */
#define FZ_MAX_OPEN		320	/* dma-buf and sync-file fds at once */
#define FZ_MAX_MAPS		48	/* mappings at once */
#define FZ_MAX_HOLDS		CMABUF_IMPORTER_MAX_HOLDS
#define FZ_MAX_MARKS		16	/* pages of a buffer written by hand */
#define FZ_MAX_FAILS_PER_KIND	3	/* failures described per kind */
#define FZ_MAX_KINDS		64
#define FZ_OP_NAME		24
#define FZ_DUP_BASE		64	/* dup2() targets start here */
#define FZ_DUP_SPAN		192
#define FZ_ARG_MAX		(16384 + 64)	/* _IOC_SIZE is 14 bits */
#define FZ_SMALL_PAGES		2048	/* largest buffer worth allocating */
#define FZ_CHECK_BYTES		(4ULL << 20)	/* importer reads at most this */
#define FZ_NAME_LEN		32	/* DMA_BUF_NAME_LEN */
/* 4 GiB minus one page of @page bytes (4, 16 or 64 KiB): one sg entry */
#define FZ_MAX_BYTES(page)	(0xffffffffULL & ~((__u64)(page) - 1))
#define FZ_PATH_LEN		128
#define FZ_MAX_WANTS		24	/* kinds we asked to have ready */
#define FZ_MAX_PREP_FILES	4	/* device files opened to prepare */

/* Strategy of a heap buffer: AUTO decided, nobody said which. */
#define FZ_STRATEGY_UNKNOWN	0xffU

/**
 * enum fz_cat - what an operation exercised, for counting and the report
 * @FZ_IOCTL: cmabuf ioctls, known and unknown.
 * @FZ_BENCH: requests to the debugfs bench files, and their reports.
 * @FZ_DMABUF: operations on dma-buf file descriptors and mappings.
 * @FZ_IMPORT: the test importer.
 * @FZ_HEAP: the dma-heaps.
 * @FZ_DATA: buffer contents read back.
 * @FZ_LIVE: the instances' live counters against the model.
 * @FZ_CATS: number of categories.
 */
enum fz_cat {
	FZ_IOCTL,
	FZ_BENCH,
	FZ_DMABUF,
	FZ_IMPORT,
	FZ_HEAP,
	FZ_DATA,
	FZ_LIVE,
	FZ_CATS,
};

/* What an fd number is, in the model. */
enum fz_fd_kind {
	FZ_FD_NONE,		/* not open (as far as we know: closed) */
	FZ_FD_OTHER,		/* open, not a dma-buf: stdio, /dev/null */
	FZ_FD_DEV,		/* a cmabuf device, @inst */
	FZ_FD_IMPORTER,		/* /dev/cmabuf_importer */
	FZ_FD_HEAP,		/* /dev/dma_heap/<name> */
	FZ_FD_BUF,		/* a dma-buf, @buf */
	FZ_FD_SYNC,		/* a sync_file from EXPORT_SYNC_FILE */
};

/**
 * struct fz_fd - one fd number
 * @kind: see &enum fz_fd_kind.
 * @buf: the buffer of an %FZ_FD_BUF.
 * @inst: the instance of an %FZ_FD_DEV or %FZ_FD_HEAP (-1: system heap).
 * @accmode: O_ACCMODE bits of the open file.
 */
struct fz_fd {
	enum fz_fd_kind kind;
	int buf;
	int inst;
	int accmode;
};

/**
 * struct fz_mark - a page word written through a mapping
 * @page: page of the buffer.
 * @val: what its first word holds.
 */
struct fz_mark {
	__u64 page;
	__u64 val;
};

/**
 * struct fz_buf - one live buffer in the model
 * @used: the slot holds a buffer.
 * @id: unique, for messages.
 * @inst: instance it came from, -1 for a foreign (system heap) buffer.
 * @size: bytes.
 * @strategy: %CMABUF_STRATEGY_* used, %FZ_STRATEGY_UNKNOWN for heap ones.
 * @align: requested log2 alignment.
 * @fds: open fds of it, in this process.
 * @maps: mappings of it.
 * @holds: importer holds of it.
 * @phys: physical address, when @phys_known.
 * @phys_known: CMABUF_IOC_PHYS has told.
 * @pattern: every importer-pattern word holds the pattern of @seed,
 *	else the buffer is zero (besides @marks).
 * @seed: see @pattern.
 * @nmarks: entries in @marks.
 * @marks: first words of pages written by hand, after @pattern.
 */
struct fz_buf {
	bool used;
	unsigned int id;
	int inst;
	__u64 size;
	__u32 strategy;
	__u32 align;
	int fds;
	int maps;
	int holds;
	__u64 phys;
	bool phys_known;
	bool pattern;
	__u64 seed;
	unsigned int nmarks;
	struct fz_mark marks[FZ_MAX_MARKS];
};

/**
 * struct fz_map - one mapping of a buffer
 * @used: the slot holds a mapping.
 * @addr: start.
 * @len: bytes, a multiple of the page size.
 * @buf: the buffer.
 * @pgoff: page of the buffer at @addr.
 * @prot: current protection.
 * @accmode: O_ACCMODE of the fd it was made from: what mprotect() allows.
 */
struct fz_map {
	bool used;
	uintptr_t addr;
	size_t len;
	int buf;
	__u64 pgoff;
	int prot;
	int accmode;
};

/**
 * struct fz_hold - a buffer the importer holds for us
 * @handle: the importer's handle, 0 for a free slot.
 * @buf: the buffer, or -1 for a foreign one.
 */
struct fz_hold {
	__u32 handle;
	int buf;
};

/* What an instance's bench file must read back. */
enum fz_report_state {
	FZ_REPORT_UNKNOWN,	/* nothing run by this process yet */
	FZ_REPORT_NONE,		/* the last run was refused: empty */
	FZ_REPORT_RUN,		/* the last run's report */
};

/**
 * struct fz_report - the report of an instance's bench file
 * @state: see &enum fz_report_state; the rest is for %FZ_REPORT_RUN.
 * @strategy: the strategy the run must have timed.
 * @calls: allocations it timed, and as many releases.
 * @iterations: its iterations.
 * @zero: it timed clearing too.
 */
struct fz_report {
	enum fz_report_state state;
	__u32 strategy;
	__u64 calls;
	__u32 iterations;
	bool zero;
};

/**
 * struct fz_inst - an instance of the driver under fuzzing
 * @rel: what rel_instances() found.
 * @fd: its device, open O_RDWR.
 * @heap: its dma-heap, or -1.
 * @bench: its debugfs bench file, "" when it has none.
 * @report: what @bench must read back.
 */
struct fz_inst {
	struct rel_instance rel;
	int fd;
	int heap;
	char bench[FZ_PATH_LEN];
	struct fz_report report;
};

/**
 * struct fz_req - a size, alignment and strategy, judged by the header
 * @pages: pages the size rounds up to.
 * @align_order: the alignment as a page order.
 * @strategy: the strategy asked for.
 * @compound: COMPOUND is what is tried first.
 * @too_big: more pages than the area has: ENOMEM, whatever else.
 */
struct fz_req {
	__u64 pages;
	unsigned int align_order;
	__u32 strategy;
	bool compound;
	bool too_big;
};

/**
 * struct fz_expect - results an operation may have
 * @errs: bit per errno it may fail with.
 * @may_succeed: success is allowed.
 * @why: the first reason that rules success out, for messages.
 */
struct fz_expect {
	__u64 errs[3];
	bool may_succeed;
	const char *why;
};

/**
 * struct fz_want - buffers of a kind a device file of ours wants ready
 * @used: the slot holds a want.
 * @fd: the device file that asked; its wants go when it is closed.
 * @inst: the instance.
 * @pages: the kind: pages of each buffer,
 * @align_order: the alignment asked for, as a page order,
 * @strategy: and the strategy asked for.
 * @count: buffers wanted.
 * @sure_until: CLOCK_MONOTONIC ns before which it cannot have timed out;
 *	after, the driver may have dropped it (an allocation that took one
 *	of its buffers would have kept it).
 */
struct fz_want {
	bool used;
	int fd;
	int inst;
	__u64 pages;
	unsigned int align_order;
	__u32 strategy;
	__u32 count;
	__u64 sure_until;
};

/**
 * struct fz_call - one raw ioctl
 * @cmd: the command number.
 * @dir: its direction bits.
 * @size: its size field.
 * @ptr: the address passed.
 * @in: bytes the driver reads (direction permitting).
 * @out: bytes it may write back, at most its own structure's.
 * @placed: @ptr is set; before that, the argument counts as readable, so
 *	that the rules on its fields can be looked at on their own.
 * @arg: the bytes placed at @ptr.
 */
struct fz_call {
	unsigned int cmd;
	unsigned int dir;
	unsigned int size;
	bool placed;
	uintptr_t ptr;
	unsigned int in;
	unsigned int out;
	__u8 arg[FZ_ARG_MAX];
};

/**
 * struct fz_arena - memory the arguments live in
 * @base: the whole mapping.
 * @page: page size.
 * @rw: %FZ_RW_PAGES read-write pages for structures.
 * @ro: one read-only page.
 * @names: %FZ_NAME_PAGES read-write pages for names.
 * Between and after them are PROT_NONE guard pages.
 */
struct fz_arena {
	__u8 *base;
	size_t page;
	__u8 *rw;
	__u8 *ro;
	__u8 *names;
};

#define FZ_RW_PAGES	5
#define FZ_NAME_PAGES	2

/**
 * struct fz - the whole fuzzer
 * @rng: the generator; everything random comes from it.
 * @seed: the seed it started from.
 * @op: number of the operation running.
 * @verbose: describe every operation on stderr.
 * @root: running with every capability.
 * @page: page size.
 * @inst: the instances.
 * @ninst: entries in @inst.
 * @imp: /dev/cmabuf_importer, or -1.
 * @sysheap: /dev/dma_heap/system, or -1.
 * @noexec: dma-buf files cannot be mapped executable (7.2's pseudo fs).
 * @fds: the model of every fd number below %FZ_MAX_FDS.
 * @open: dma-buf and sync-file fds open.
 * @bufs: the buffers.
 * @next_id: id of the next buffer.
 * @maps: the mappings.
 * @holds: the importer holds.
 * @nholds: used entries of @holds.
 * @arena: where arguments live.
 * @ops: operations run, per category.
 * @oks: of those, the ones that succeeded.
 * @fails: failures, per category.
 * @nfail_msgs: failures described.
 * @kinds: failures seen, by their message's format and operation.
 * @nkinds: entries in @kinds.
 * @checkpoints: live-counter comparisons made.
 * @wants: the buffers our device files asked to have ready.
 * @prep_fds: device files opened to prepare, -1 for a free slot.
 * @busy_until: per instance, CLOCK_MONOTONIC ns until which the pool may
 *	still be making a buffer for a want that is gone.
 * @prepare_timeout_ms: the driver's default time-out of a want.
 * @prepare_max_percent: share of an area all wants may take.
 * @prepare_file_percent: share one unprivileged file may want.
 * @prepare: the driver has CMABUF_IOC_PREPARE.
 * @prep_dirty: wants may stand: fz_prepare_drop_all() has work.
 * @jmp: where a fault on a mapping returns to.
 * @what: description of the operation running.
 * @now: the same, with its number, in a file that outlives a stuck run
 *	($CMABUF_NOW_DIR/PID, read by the guest's time-out report); or NULL.
 */
struct fz {
	struct rel_rng rng;
	__u64 seed;
	__u64 op;
	bool verbose;
	bool root;
	size_t page;
	struct fz_inst inst[REL_MAX_INSTANCES];
	unsigned int ninst;
	int imp;
	int sysheap;
	bool noexec;
	struct fz_fd fds[FZ_MAX_FDS];
	unsigned int open;
	struct fz_buf bufs[FZ_MAX_BUFS];
	unsigned int next_id;
	struct fz_map maps[FZ_MAX_MAPS];
	struct fz_hold holds[FZ_MAX_HOLDS];
	unsigned int nholds;
	struct fz_arena arena;
	__u64 ops[FZ_CATS];
	__u64 oks[FZ_CATS];
	__u64 fails[FZ_CATS];
	unsigned int nfail_msgs;
	struct {
		const char *fmt;
		char op[FZ_OP_NAME];
		unsigned int count;
	} kinds[FZ_MAX_KINDS];
	unsigned int nkinds;
	__u64 checkpoints;
	struct fz_want wants[FZ_MAX_WANTS];
	int prep_fds[FZ_MAX_PREP_FILES];
	__u64 busy_until[REL_MAX_INSTANCES];
	unsigned int prepare_timeout_ms;
	unsigned int prepare_max_percent;
	unsigned int prepare_file_percent;
	bool prepare;
	bool prep_dirty;
	sigjmp_buf jmp;
	char what[256];
	char *now;
};

static inline size_t fz_min(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* fuzz_judge.c */
void fz_expect_init(struct fz_expect *e);
void fz_now_open(struct fz *f);
void fz_err(struct fz_expect *e, int err, const char *why);
bool fz_has(const struct fz_expect *e, int err);
bool fz_judge(struct fz *f, enum fz_cat cat, const struct fz_expect *e,
	      int err);
void fz_fail(struct fz *f, enum fz_cat cat, const char *fmt, ...)
	__printf(3, 4);
void fz_describe(struct fz *f, const char *fmt, ...)
	__printf(2, 3);

/* fuzz_arena.c */
int fz_arena_init(struct fz_arena *a, size_t page);
bool fz_readable(const struct fz *f, uintptr_t addr, size_t len);
bool fz_writable(const struct fz *f, uintptr_t addr, size_t len);
size_t fz_readable_prefix(const struct fz *f, uintptr_t addr, size_t len);
uintptr_t fz_place(struct fz *f, const void *bytes, size_t len);
uintptr_t fz_place_name(struct fz *f, const void *bytes, size_t len);
uintptr_t fz_bad_pointer(struct fz *f);
bool fz_intact(const struct fz *f, uintptr_t addr, size_t from, size_t len,
	       const __u8 *orig);
void fz_read_back(const struct fz *f, uintptr_t addr, void *out, size_t len);
__u64 fz_boundary(struct fz *f);
void fz_mutate(struct fz *f, __u8 *arg, size_t len, size_t ksize,
	       size_t out_from);
unsigned int fz_cmd(struct fz *f, unsigned int type, unsigned int nr,
		    unsigned int ksize, unsigned int *dir, unsigned int *size);

/* fuzz_state.c */
int fz_buf_new(struct fz *f, int inst, __u64 size, __u32 strategy,
	       __u32 align);
void fz_buf_put(struct fz *f, int b);
void fz_fd_set(struct fz *f, int fd, enum fz_fd_kind kind, int buf, int inst,
	       int accmode);
void fz_fd_closed(struct fz *f, int fd);
int fz_pick_fd(struct fz *f, enum fz_fd_kind kind);
int fz_pick_any_fd(struct fz *f);
int fz_pick_buf(struct fz *f, bool foreign_ok);
int fz_buf_fd(struct fz *f, int b);
__u64 fz_page_word(const struct fz *f, const struct fz_buf *b, __u64 page);
bool fz_mark(struct fz_buf *b, __u64 page, __u64 val);
void fz_model_live(const struct fz *f, int inst, __u64 *buffers,
		   __u64 *bytes);
int fz_free_map_slot(const struct fz *f);
void fz_map_remove(struct fz *f, int m);
int fz_inst_maxchunk(struct fz *f, int inst, __u64 *pages);
int fz_scan_open_fds(struct fz *f);
void fz_release_all(struct fz *f);

/* fuzz_cmabuf.c */
bool fz_model_copy_in(struct fz *f, const struct fz_call *c,
		      unsigned int ksize, unsigned int out_from,
		      struct fz_expect *e);
void fz_call_prepare(struct fz *f, struct fz_call *c, unsigned int nr,
		     unsigned int ksize, const void *tmpl);
void fz_call_place(struct fz *f, struct fz_call *c);
int fz_call(struct fz *f, int fd, struct fz_call *c, void *out,
	    size_t out_size);
unsigned int fz_shift(const struct fz_inst *in);
__u32 fz_best(const struct fz_inst *in);
void fz_model_request(const struct fz_inst *in, __u64 size, __u32 align,
		      __u32 strategy, struct fz_expect *e, struct fz_req *rq);
void fz_op_alloc(struct fz *f);
void fz_op_info(struct fz *f);
void fz_op_phys(struct fz *f);
void fz_op_unknown(struct fz *f);
void fz_check_live(struct fz *f);
bool fz_alloc_simple(struct fz *f, int inst, __u64 size, int *fd);

/* fuzz_prepare.c */
void fz_prepare_setup(struct fz *f);
void fz_op_prepare(struct fz *f);
void fz_prepare_drop_all(struct fz *f);
bool fz_area_busy(struct fz *f, int inst);
bool fz_prepared_strategy(const struct fz *f, int inst, __u64 pages,
			  __u32 strategy);
void fz_model_no_range(struct fz *f, int inst, __u64 pages,
		       struct fz_expect *e);

/* fuzz_bench.c */
void fz_bench_setup(struct fz *f, int inst);
bool fz_any_bench(const struct fz *f);
void fz_op_bench(struct fz *f);

/* fuzz_dmabuf.c */
int fz_probe_noexec(struct fz *f);
void fz_op_mmap(struct fz *f);
void fz_op_munmap(struct fz *f);
void fz_op_mprotect(struct fz *f);
void fz_op_touch(struct fz *f);
void fz_op_sync(struct fz *f);
void fz_op_set_name(struct fz *f);
void fz_op_sync_file(struct fz *f);
void fz_op_seek_rw(struct fz *f);
void fz_op_dup(struct fz *f);
void fz_op_close(struct fz *f);
void fz_op_fork(struct fz *f);

/* fuzz_import.c */
void fz_op_check(struct fz *f);
void fz_op_hold(struct fz *f);
void fz_op_release(struct fz *f);
void fz_op_heap(struct fz *f);
void fz_op_sysheap(struct fz *f);

/* fuzz_rw.c */
void fz_rw_setup(void);
void fz_rw_cleanup(void);
void fz_op_rw(struct fz *f);

#endif /* FUZZ_H */
