// SPDX-License-Identifier: GPL-2.0
/*
 * The span index (cli/span_index.c, what the sample walk asks for a
 * process's mappings) against the scan it replaced: random ranges, dense
 * and sparse, nested, equal, empty and at the ends of the address space;
 * every question asked both ways must give the same answer.
 */
#include <stdint.h>
#include <stdlib.h>

#include "kselftest_harness.h"

#include "span_index.h"

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rnd_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rnd_state = x;
}

static int holds(const struct span *s, uint64_t a)
{
	return s->start <= a && a < s->end;
}

static ssize_t scan_last(const struct span *s, size_t n, size_t before, uint64_t a)
{
	size_t i;

	for (i = before < n ? before : n; i-- > 0;)
		if (holds(&s[i], a))
			return (ssize_t)i;
	return -1;
}

static ssize_t scan_first(const struct span *s, size_t n, uint64_t a)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (holds(&s[i], a))
			return (ssize_t)i;
	return -1;
}

static ssize_t scan_next(const struct span *s, size_t n, size_t after, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = after + 1; i < n; i++)
		if (s[i].start < hi && lo < s[i].end && s[i].start < s[i].end && lo < hi)
			return (ssize_t)i;
	return -1;
}

/* A span in a space of @width addresses from @base: short, long, empty or the whole. */
static struct span random_span(uint64_t base, uint64_t width)
{
	uint64_t a = base + rnd() % width, len;

	switch (rnd() % 8) {
	case 0:
		return (struct span){ a, a };		/* empty */
	case 1:
		return (struct span){ base, base + width };
	case 2:
		len = rnd() % width;
		break;
	default:
		len = 1 + rnd() % 16;
	}
	if (a + len < a)
		len = UINT64_MAX - a;
	return (struct span){ a, a + len };
}

static void compare(struct __test_metadata *_metadata, size_t n, uint64_t base, uint64_t width)
{
	struct span *s = calloc(n ? n : 1, sizeof(*s));
	struct span_index *idx;
	size_t i, q;

	ASSERT_NE(NULL, s);
	for (i = 0; i < n; i++)
		s[i] = random_span(base, width);
	idx = span_index_new(s, n);
	ASSERT_NE(NULL, idx);
	for (q = 0; q < 4000; q++) {
		uint64_t a = base + rnd() % (width + 2) - 1;
		size_t at = n ? rnd() % (n + 1) : 0;
		struct span w = random_span(base, width);

		ASSERT_EQ(scan_last(s, n, at, a), span_index_last(idx, at, a))
			TH_LOG("n %zu last before %zu of %#llx", n, at, (unsigned long long)a);
		ASSERT_EQ(scan_first(s, n, a), span_index_first(idx, a));
		if (n)
			ASSERT_EQ(scan_next(s, n, at % n, w.start, w.end),
				  span_index_next_overlap(idx, at % n, w.start, w.end))
				TH_LOG("n %zu next after %zu over [%#llx, %#llx)", n, at % n,
				       (unsigned long long)w.start, (unsigned long long)w.end);
	}
	span_index_free(idx);
	free(s);
}

TEST(empty_and_one)
{
	struct span one = { 10, 20 };
	struct span_index *idx = span_index_new(NULL, 0);

	ASSERT_NE(NULL, idx);
	EXPECT_EQ(-1, span_index_last(idx, 0, 10));
	EXPECT_EQ(-1, span_index_first(idx, 10));
	span_index_free(idx);
	idx = span_index_new(&one, 1);
	ASSERT_NE(NULL, idx);
	EXPECT_EQ(0, span_index_last(idx, 1, 10));
	EXPECT_EQ(-1, span_index_last(idx, 0, 10));
	EXPECT_EQ(-1, span_index_last(idx, 1, 20));
	EXPECT_EQ(0, span_index_first(idx, 19));
	EXPECT_EQ(-1, span_index_next_overlap(idx, 0, 0, 100));
	span_index_free(idx);
}

TEST(against_a_scan)
{
	static const size_t sizes[] = { 2, 3, 5, 8, 31, 64, 100, 257, 1000 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		compare(_metadata, sizes[i], 0x400000, 64);		/* dense: all overlap */
		compare(_metadata, sizes[i], 0x7f0000000000, 1 << 20);	/* sparse */
		compare(_metadata, sizes[i], UINT64_MAX - 100, 100);	/* the top end */
	}
}

TEST_HARNESS_MAIN
