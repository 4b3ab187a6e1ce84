// SPDX-License-Identifier: GPL-2.0
/*
 * rel_test: the host's test of rel_cma_has_room(), which decides whether
 * an ENOMEM of the stress test was the area's doing (reliability_util.c),
 * on CMA debugfs directories made up here. Run by tests/qemu/test-runner.sh.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "reliability_util.h"

FIXTURE(room) {
	char dir[64];
};

FIXTURE_SETUP(room)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/rel_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, setenv("CMABUF_CMA_DEBUGFS", self->dir, 1));
}

FIXTURE_TEARDOWN(room)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

static void put(const char *dir, const char *area, const char *file,
		const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, area);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, area, file);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * An area of 64 pages at pfn 0x1000, one bit per page, as debugfs prints
 * it: 32-bit words, low bit first. Pages 8..15 and 36..63 are taken.
 */
static void area(const char *dir, const char *bitmap)
{
	put(dir, "a", "base_pfn", "4096\n");
	put(dir, "a", "count", "64\n");
	put(dir, "a", "order_per_bit", "0\n");
	put(dir, "a", "bitmap", bitmap);
}

static bool room(struct __test_metadata *_metadata, unsigned long long pages,
		 unsigned long long align)
{
	bool r = true;

	EXPECT_EQ(0, rel_cma_has_room("a", pages, align, &r));
	return r;
}

TEST_F(room, free_runs_and_alignment)
{
	/* word 0: bits 8..15 set; word 1: bits 4..31 set (pages 36..63). */
	area(self->dir, "65280 4294967280\n");
	EXPECT_TRUE(room(_metadata, 8, 1));	/* pages 0..7 */
	EXPECT_TRUE(room(_metadata, 20, 1));	/* pages 16..35 */
	EXPECT_FALSE(room(_metadata, 21, 1));
	EXPECT_TRUE(room(_metadata, 16, 16));	/* pfn 0x1010, pages 16..31 */
	EXPECT_FALSE(room(_metadata, 32, 32));
	EXPECT_FALSE(room(_metadata, 16, 32));	/* 0x1020 has 4 free only */
	EXPECT_TRUE(room(_metadata, 8, 8));
}

TEST_F(room, full_area_has_none)
{
	area(self->dir, "4294967295 4294967295\n");
	EXPECT_FALSE(room(_metadata, 1, 1));
}

/* Bits past the area's count are padding, not free pages. */
TEST_F(room, padding_bits_are_not_free)
{
	put(self->dir, "a", "base_pfn", "0\n");
	put(self->dir, "a", "count", "40\n");
	put(self->dir, "a", "order_per_bit", "0\n");
	put(self->dir, "a", "bitmap", "4294967295 0\n");
	EXPECT_TRUE(room(_metadata, 8, 1));	/* pages 32..39 */
	EXPECT_FALSE(room(_metadata, 9, 1));
}

/* With two pages a bit, runs are twice as long. */
TEST_F(room, order_per_bit_scales)
{
	put(self->dir, "a", "base_pfn", "0\n");
	put(self->dir, "a", "count", "64\n");
	put(self->dir, "a", "order_per_bit", "1\n");
	put(self->dir, "a", "bitmap", "4294901760\n");	/* bits 16..31 */
	EXPECT_TRUE(room(_metadata, 32, 32));
	EXPECT_FALSE(room(_metadata, 33, 1));
}

TEST_HARNESS_MAIN
