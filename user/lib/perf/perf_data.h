/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The perf.data reader's private state, shared by perf_data.c (opening,
 * events, the walk over the data section, decompression) and
 * perf_decode.c (each record decoded where it lies).
 */
#ifndef LIBSECMAP_PERF_DATA_H
#define LIBSECMAP_PERF_DATA_H

#include <stdbool.h>
#include <stdint.h>
#include <zstd.h>

#include "internal.h"

/* The bits this reader knows of sample_type, read_format, branch_sample_type. */
#define SAMPLE_KNOWN		((PERF_SAMPLE_WEIGHT_STRUCT << 1) - 1)
#define FORMAT_KNOWN		((PERF_FORMAT_LOST << 1) - 1)
#define BRANCH_KNOWN		((PERF_SAMPLE_BRANCH_COUNTERS << 1) - 1)

/* perf_event_attr flag bits (the u64 at offset 40). */
#define A_FREQ			(1ULL << 10)
#define A_SAMPLE_ID_ALL		(1ULL << 18)
#define A_USE_CLOCKID		(1ULL << 25)


/* perf_event_attr: offsets of the fields read, and the largest size looked at. */
#define ATTR_TYPE		0
#define ATTR_SIZE		4
#define ATTR_CONFIG		8
#define ATTR_PERIOD		16
#define ATTR_SAMPLE_TYPE	24
#define ATTR_READ_FORMAT	32
#define ATTR_FLAGS		40
#define ATTR_BRANCH_TYPE	72
#define ATTR_REGS_USER		80
#define ATTR_CLOCKID		92
#define ATTR_REGS_INTR		96
#define ATTR_LOOKED_AT		104

#define HEADER_EVENT_DESC	12	/* feature bit */
#define EVENT_DESC_MAX		(16 << 20)
#define IDS_MAX			(1 << 24)	/* sample ids over all events */
/* Decompressed bytes held at once: what is left of one batch plus the next. */
#define DECOMP_MAX		(64 << 20)
/*
 * What the compressed records of a file may decompress to, all together:
 * DECOMP_MAX, plus DECOMP_RATIO times the bytes of the data section read
 * so far. perf record -z writes 5 to 10 times smaller with frame-pointer
 * callchains, up to 80 on a loop; dwarf callchains (stacks copied whole,
 * much the same from one sample to the next) measured 255 to 1922 (levels
 * 1 to 19, 8 and 64 KiB of stack, up to 20 kHz). zstd bombs of valid
 * records reach 12 000 and more: a file of 20 such records, 110 KiB,
 * decompressed 1.3 GB. Counted as the data is read, so that they are
 * refused at the second, not after all of them.
 */
#define DECOMP_RATIO		4096
#define DECOMP_START		(1 << 20)
#define REC_MAX			65536

/*
 * A sample starts with fields of fixed size (IDENTIFIER up to PERIOD):
 * their byte offsets in the record, worked out once per event, so that a
 * sample of the usual kinds is read without a test per field. 0: absent.
 */
struct sample_head {
	uint16_t ip, tid, time, addr, id, stream_id, cpu, period;
	uint16_t size;			/* record header and fixed fields */
};

/* Sample fields after the fixed ones, of sizes that vary or that need a look. */
#define SAMPLE_TAIL	(SAMPLE_KNOWN & ~(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
				      PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
				      PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
				      PERF_SAMPLE_PERIOD))

struct pd_event {
	struct secmap_perf_event pub;
	unsigned int nr_regs_user, nr_regs_intr;
	uint64_t trailer_size;		/* sample_id_all fields on other records */
	struct sample_head head;
};

struct pd_id {
	uint64_t id;
	size_t event;
};

/*
 * The data section is read through a window of the file: pread()s of
 * WINDOW bytes, and a record's worth more (REC_MAX), so that a record is
 * always whole in it. Mapped, the file cost page faults or madvise()s
 * (10% of a report), a second time for the prescan's pass, resident
 * memory that grew with how the page cache held the file, and a SIGBUS
 * if it shrank.
 */
#define WINDOW		(1u << 17)

struct secmap_perf_data {
	const uint8_t *map;		/* the header and feature sections are read here */
	size_t map_len;
	int fd;
	uint8_t *win;			/* WINDOW + REC_MAX bytes */
	uint64_t win_off;		/* the file offset of win[0] */
	size_t win_len;
	bool skip_samples;		/* secmap_perf_data_skip_samples() */
	uint64_t pos, data_end;		/* the next record in the file; the data's end */
	uint64_t offset;		/* of the record last returned (or the bad one) */
	struct pd_event *events;
	size_t nr_events;
	struct pd_id *ids;		/* sorted by id */
	size_t nr_ids;
	const struct pd_id *last_id;	/* find_id()'s last answer */
	bool sample_id_all;
	int id_pos;			/* u64 index of the id in a sample; -1: single event */
	int is_pos;			/* u64 index of the id from a trailer's end */
	uint64_t unknown_ids;
	int err;			/* sticky */
	/* Decompressed bytes: [dhead, dlen) not yet returned, from the record at doffset. */
	ZSTD_DStream *zds;
	uint8_t *dbuf;
	size_t dcap, dhead, dlen;
	uint64_t doffset;
	uint64_t data_start;		/* of the data section, in the file */
	uint64_t dtotal;		/* bytes decompressed so far, all batches */
	const uint8_t *rec;		/* the record being decoded */
	bool in_batch;			/* it came out of a compressed record */
	/* The file's header and feature sections (build-ids, secmap_perf_data_header()). */
	uint64_t features[LIBSECMAP_PERF_FEAT_BITS / 64];
	struct libsecmap_perf_range feat[LIBSECMAP_PERF_FEAT_BITS];
	uint64_t data_size, feat_offset;
	char *cmdline;			/* HEADER_CMDLINE's words joined, made on first ask */
	uint64_t chain[REC_MAX / 8];	/* a callchain put in host order */
};

/* perf_data.c */
const struct pd_id *pd_find_id(struct secmap_perf_data *pd, uint64_t id);

/*
 * An entry of the file's build-id table (HEADER_BUILD_ID): a file perf
 * saw samples in and its build-id, as perf record wrote them.
 */
struct pd_build_id {
	int32_t pid;		/* -1: the host */
	uint16_t misc;		/* cpumode: kernel or user */
	const uint8_t *id;
	size_t id_len;
	const char *filename;	/* NUL-terminated in the table */
};
/* The entry at *@pos (0 first), *@pos moved past it: 1, 0 at the end, -EBADMSG. */
int pd_next_build_id(const struct secmap_perf_data *pd, uint64_t *pos, struct pd_build_id *e);

/* perf_decode.c */
int pd_decode(struct secmap_perf_data *pd, uint64_t size, struct secmap_perf_record *rec);

#endif /* LIBSECMAP_PERF_DATA_H */
