// SPDX-License-Identifier: GPL-2.0
/*
 * libsecmap.so.1 with callers built against other headers than its own.
 *
 * Built twice from this file, both linked with the shared library:
 * - abi_old_test, against a copy of secmap.h without the last field of
 *   struct secmap_resolution (file_offset): a program built before that
 *   field was added. Its answers must be whole and nothing past its
 *   structs written, one at a time and in arrays.
 * - abi_compat_test, against secmap.h, with structs longer than the
 *   library's: a program built against a header newer than the library.
 *   Unknown trailing bytes are accepted when zero and refused with -E2BIG
 *   otherwise; output fields the library does not know come back zero.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "secmap.h"

#define TEXT	0xffffffffc0010000ull
#define CANARY	0xa5

/* A resolver holding one module, "m", .text at TEXT for 0x1000 bytes from t=10. */
static struct secmap_resolver *one_module(struct __test_metadata *_metadata)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .no_ko = true);
	SECMAP_RECORD(rec, .type = SECMAP_REC_SEC_MAP, .pid = SECMAP_PID_HOST_KERNEL,
		      .time_local_ns = 10, .time_mono_ns = 10, .seq = 1, .start = TEXT,
		      .len = 0x1000, .pgoff = 0x40, .section = ".text", .module = "m",
		      .flags = SECMAP_MAP_F_EXEC);
	struct secmap_resolver *res;

	EXPECT_EQ(0, secmap_resolver_new(&opts, &res));
	EXPECT_EQ(0, secmap_resolver_add(res, &rec));
	EXPECT_EQ(0, secmap_resolver_finish(res));
	return res;
}

#ifdef ABI_OLD_HEADER

/* The header this was built with is the old one. */
_Static_assert(sizeof(struct secmap_resolution) ==
	       offsetof(struct secmap_resolution, reason) + sizeof(const char *),
	       "built against the header without file_offset");

struct old_answer {
	struct secmap_resolution r;
	uint8_t after[16];
};

static bool canary_intact(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != CANARY)
			return false;
	return true;
}

TEST(old_resolution_filled_up_to_its_size)
{
	struct secmap_resolver *res = one_module(_metadata);
	struct old_answer a;

	memset(&a, CANARY, sizeof(a));
	a.r.sz = sizeof(a.r);
	ASSERT_EQ(0, secmap_resolve(res, TEXT + 0x123, 20, &a.r));
	EXPECT_EQ(sizeof(a.r), a.r.sz);
	EXPECT_EQ(SECMAP_RESOLVED_MODULE, a.r.kind);
	EXPECT_STREQ("m", a.r.module);
	EXPECT_STREQ(".text", a.r.section);
	EXPECT_EQ(0x123u, a.r.section_offset);
	EXPECT_EQ(TEXT, a.r.map_start);
	EXPECT_TRUE(canary_intact(a.after, sizeof(a.after)));
	/* Outside every module and the kernel: the answer says so, still in bounds. */
	EXPECT_EQ(-ENOENT, secmap_resolve(res, 0x1000, 20, &a.r));
	EXPECT_TRUE(canary_intact(a.after, sizeof(a.after)));
	secmap_resolver_free(res);
}

TEST(old_resolutions_in_an_array)
{
	struct secmap_resolver *res = one_module(_metadata);
	struct {
		struct secmap_resolution r[4];
		uint8_t after[16];
	} many;
	const uint64_t addrs[4] = { TEXT, TEXT + 0x10, 0x1000, TEXT + 0xfff };
	int ret[4], i;

	memset(&many, CANARY, sizeof(many));
	many.r[0].sz = sizeof(many.r[0]);
	secmap_resolve_many(res, addrs, NULL, 4, many.r, ret);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(i == 2 ? -ENOENT : 0, ret[i]);
		if (ret[i])
			continue;
		EXPECT_EQ(sizeof(many.r[0]), many.r[i].sz);
		EXPECT_STREQ("m", many.r[i].module);
		EXPECT_EQ(addrs[i] - TEXT, many.r[i].section_offset);
	}
	EXPECT_TRUE(canary_intact(many.after, sizeof(many.after)));
	secmap_resolver_free(res);
}

#else /* a header newer than the library */

TEST(longer_input_zero_tail_accepted_else_e2big)
{
	struct {
		struct secmap_resolver_opts o;
		uint64_t newer;
	} big = { .o = { .sz = sizeof(big), .no_ko = true } };
	struct {
		struct secmap_record rec;
		uint64_t newer;
	} rec = { .rec = { .sz = sizeof(rec), .type = SECMAP_REC_SEC_MAP,
			   .pid = SECMAP_PID_HOST_KERNEL, .time_local_ns = 10, .time_mono_ns = 10,
			   .seq = 1, .start = TEXT, .len = 0x1000, .section = ".text",
			   .module = "m", .flags = SECMAP_MAP_F_EXEC } };
	struct secmap_resolver *res;

	big.newer = 1;
	EXPECT_EQ(-E2BIG, secmap_resolver_new(&big.o, &res));
	big.newer = 0;
	ASSERT_EQ(0, secmap_resolver_new(&big.o, &res));
	rec.newer = 7;
	EXPECT_EQ(-E2BIG, secmap_resolver_add(res, &rec.rec));
	rec.newer = 0;
	EXPECT_EQ(0, secmap_resolver_add(res, &rec.rec));
	EXPECT_EQ(0, secmap_resolver_finish(res));
	secmap_resolver_free(res);
}

TEST(shorter_than_1_0_refused)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .no_ko = true);
	SECMAP_RECORD(rec, .type = SECMAP_REC_UNMAP, .module = "m");
	struct secmap_resolver *res;

	opts.sz = offsetof(struct secmap_resolver_opts, no_ko);
	EXPECT_EQ(-EINVAL, secmap_resolver_new(&opts, &res));
	opts.sz = 0;
	EXPECT_EQ(-EINVAL, secmap_resolver_new(&opts, &res));
	opts.sz = sizeof(opts);
	ASSERT_EQ(0, secmap_resolver_new(&opts, &res));
	rec.sz = offsetof(struct secmap_record, type);
	EXPECT_EQ(-EINVAL, secmap_resolver_add(res, &rec));
	secmap_resolver_free(res);
}

TEST(longer_output_tail_zeroed)
{
	struct secmap_resolver *res = one_module(_metadata);
	struct {
		struct secmap_resolution r;
		uint64_t newer[2];
	} a;
	struct {
		struct secmap_resolution r;
		uint64_t newer;
	} many[3];
	const uint64_t addrs[3] = { TEXT + 1, TEXT + 2, TEXT + 3 };
	int ret[3], i;

	memset(&a, 0xff, sizeof(a));
	a.r.sz = sizeof(a);
	ASSERT_EQ(0, secmap_resolve(res, TEXT + 0x20, 20, &a.r));
	EXPECT_EQ(sizeof(a), a.r.sz);
	EXPECT_EQ(0x20u, a.r.section_offset);
	/* The section's offset in the file, as recorded: perf's pgoff. */
	EXPECT_EQ(0x40u + 0x20, a.r.file_offset);
	EXPECT_EQ(0u, a.newer[0]);
	EXPECT_EQ(0u, a.newer[1]);

	memset(many, 0xff, sizeof(many));
	many[0].r.sz = sizeof(many[0]);
	secmap_resolve_many(res, addrs, NULL, 3, &many[0].r, ret);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, ret[i]);
		EXPECT_EQ(addrs[i] - TEXT, many[i].r.section_offset);
		EXPECT_EQ(0u, many[i].newer);
	}
	secmap_resolver_free(res);
}

TEST(library_arrays_step_by_their_size)
{
	SECMAP_OPTS(secmap_kernel_info, ki);
	struct secmap_frame f[2] = { { .sz = sizeof(f[0]), .ip = 1 }, { .sz = sizeof(f[0]), .ip = 2 } };

	/* secmap_frame_at() steps by the library's size, not the caller's. */
	EXPECT_EQ(2u, secmap_frame_at(f, 1)->ip);
	/* An output struct below the 1.0 size is refused before anything is read. */
	ki.sz = sizeof(size_t);
	EXPECT_EQ(-EINVAL, secmap_kernel_info_read(NULL, SECMAP_KERNEL_INFO_NO_SYMBOLS, &ki));
}

#endif

TEST_HARNESS_MAIN
