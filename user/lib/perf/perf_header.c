// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A perf.data's header features, as perf report --header shows them:
 * where and how it was recorded. Read from the file's mapping on demand;
 * each section checked against its own size.
 *
 * Strings (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID) are a u32
 * length and that many bytes, NUL-padded; CMDLINE a u32 count of them;
 * NRCPUS two u32 (available, then online); TOTAL_MEM a u64 of kB;
 * SAMPLE_TIME two u64 (first and last sample).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "perf/perf_data.h"

enum {
	HEADER_HOSTNAME = 3, HEADER_OSRELEASE, HEADER_VERSION, HEADER_ARCH, HEADER_NRCPUS,
	HEADER_CPUDESC, HEADER_CPUID, HEADER_TOTAL_MEM, HEADER_CMDLINE,
	HEADER_SAMPLE_TIME = 21,
};

/* The struct as LIBSECMAP_1.1 made it: a caller's is no shorter. */
#define HEADER_SZ_1_1	offsetofend(struct secmap_perf_header, last_sample_time)

/* The most words a command line may have here: perf's own reader takes any. */
#define CMDLINE_MAX_WORDS	65536

/* Feature @bit's section, or NULL (and *@len 0) when the file has none. */
static const uint8_t *section(const struct secmap_perf_data *pd, unsigned int bit, uint64_t *len)
{
	*len = 0;
	if (!libsecmap_feat_test(pd->features, bit))
		return NULL;
	*len = pd->feat[bit].size;
	return pd->map + pd->feat[bit].offset;
}

/* A header string at *@p (@left bytes), *@p moved past it: NULL if it is not one. */
static const char *header_string(const uint8_t **p, uint64_t *left)
{
	uint32_t len;
	const char *s;

	if (*left < 4)
		return NULL;
	len = get32(*p);
	if (len > *left - 4 || !len || !memchr(*p + 4, 0, len))
		return NULL;
	s = (const char *)*p + 4;
	*p += 4 + (uint64_t)len;
	*left -= 4 + (uint64_t)len;
	return s;
}

static int string_feature(const struct secmap_perf_data *pd, unsigned int bit, const char **out)
{
	uint64_t left;
	const uint8_t *p = section(pd, bit, &left);

	*out = NULL;
	if (!p)
		return 0;
	*out = header_string(&p, &left);
	return *out ? 0 : libsecmap_reason(-EBADMSG, "corrupt header feature section %u", bit);
}

/* HEADER_CMDLINE's words joined by spaces, kept in @pd. */
static int cmdline(struct secmap_perf_data *pd, const char **out)
{
	uint64_t left, i, nr, total = 0;
	const uint8_t *p = section(pd, HEADER_CMDLINE, &left), *words;
	const char *w;
	char *q;

	*out = pd->cmdline;
	if (!p || pd->cmdline)
		return 0;
	if (left < 4 || (nr = get32(p)) > CMDLINE_MAX_WORDS)
		return libsecmap_reason(-EBADMSG, "corrupt command line header section");
	p += 4;
	left -= 4;
	words = p;
	for (i = 0; i < nr; i++) {
		w = header_string(&p, &left);
		if (!w)
			return libsecmap_reason(-EBADMSG, "corrupt command line header section");
		total += strlen(w) + 1;
	}
	pd->cmdline = malloc(total + 1);
	if (!pd->cmdline)
		return -ENOMEM;
	q = pd->cmdline;
	*q = '\0';
	for (p = words, i = 0; i < nr; i++) {
		uint32_t len = get32(p);

		w = (const char *)p + 4;
		p += 4 + (uint64_t)len;
		q = stpcpy(q, w);
		if (i + 1 < nr)
			*q++ = ' ';
	}
	*out = pd->cmdline;
	return 0;
}

SECMAP_EXPORT int secmap_perf_data_header(struct secmap_perf_data *pd,
					  struct secmap_perf_header *header)
{
	struct secmap_perf_header h = { .sz = sizeof(h) };
	static const struct {
		unsigned int bit;
		size_t at;
	} strings[] = {
		{ HEADER_HOSTNAME, offsetof(struct secmap_perf_header, hostname) },
		{ HEADER_OSRELEASE, offsetof(struct secmap_perf_header, os_release) },
		{ HEADER_VERSION, offsetof(struct secmap_perf_header, perf_version) },
		{ HEADER_ARCH, offsetof(struct secmap_perf_header, arch) },
		{ HEADER_CPUDESC, offsetof(struct secmap_perf_header, cpu_desc) },
		{ HEADER_CPUID, offsetof(struct secmap_perf_header, cpuid) },
	};
	const uint8_t *p;
	uint64_t len;
	size_t i;
	int err = 0;

	libsecmap_reason_clear();
	if (!pd || !header || header->sz < HEADER_SZ_1_1)
		return libsecmap_err(-EINVAL);
	h.data_offset = pd->data_start;
	h.data_size = pd->data_size;
	h.feat_offset = pd->feat_offset;
	for (i = 0; !err && i < sizeof(strings) / sizeof(strings[0]); i++)
		err = string_feature(pd, strings[i].bit,
				     (const char **)((char *)&h + strings[i].at));
	p = section(pd, HEADER_NRCPUS, &len);
	if (p && len >= 8) {
		h.nr_cpus_avail = get32(p);
		h.nr_cpus_online = get32(p + 4);
	}
	p = section(pd, HEADER_TOTAL_MEM, &len);
	if (p && len >= 8)
		h.total_mem_kb = get64(p);
	p = section(pd, HEADER_SAMPLE_TIME, &len);
	if (p && len >= 16) {
		h.has_sample_time = true;
		h.first_sample_time = get64(p);
		h.last_sample_time = get64(p + 8);
	}
	if (!err)
		err = cmdline(pd, &h.cmdline);
	if (err)
		return libsecmap_err(err);
	return libsecmap_struct_out(header, HEADER_SZ_1_1, &h, sizeof(h));
}
