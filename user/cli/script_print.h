/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sample as perf script prints it, its fields chosen as perf script -F
 * chooses them (cli/script_print.c): the same names, order and layout.
 */
#ifndef SECMAP_SCRIPT_PRINT_H
#define SECMAP_SCRIPT_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "secmap_cli.h"

enum script_field {
	FIELD_COMM = 1u << 0,
	FIELD_TID = 1u << 1,
	FIELD_PID = 1u << 2,
	FIELD_TIME = 1u << 3,
	FIELD_CPU = 1u << 4,
	FIELD_EVENT = 1u << 5,
	FIELD_PERIOD = 1u << 6,
	FIELD_IP = 1u << 7,
	FIELD_SYM = 1u << 8,
	FIELD_SYMOFF = 1u << 9,
	FIELD_DSO = 1u << 10,
};

/* perf script's default for sampling events. */
#define SCRIPT_DEFAULT_FIELDS \
	(FIELD_COMM | FIELD_TID | FIELD_TIME | FIELD_CPU | FIELD_EVENT | FIELD_PERIOD | \
	 FIELD_IP | FIELD_SYM | FIELD_SYMOFF | FIELD_DSO)

struct script_print {
	unsigned int fields;	/* FIELD_* */
	bool fields_set;	/* -F named them (not +field, -field): each must be there */
	bool ns;		/* times to the nanosecond */
	int name_width;		/* events' names right-aligned, as wide as the longest */
	/* The samples' text not yet written: written in calls of 64 KiB. */
	char *line;
	size_t line_len, line_cap;
};

/*
 * -F/--fields as perf script takes it: "comm,tid,..." (those alone), or
 * "+field,-field..." (perf's default changed). An exit code, the error
 * said in one line.
 */
int script_fields(const char *arg, struct script_print *p);
struct sample_walk;
/*
 * Ready to print @walk's samples: perf's refusal of a field -F names that
 * an event's samples lack (cpu, time), and the events' names' width. An
 * exit code, the error said.
 */
int script_print_begin(struct script_print *p, struct sample_walk *walk);
/*
 * One sample's lines, for @out: 0, or -ENOMEM (none of its lines kept).
 * Written with others a while later: script_print_flush() writes them all.
 */
int script_print_sample(FILE *out, struct script_print *p, const struct secmap_sample *s,
			const char *event);
void script_print_flush(struct script_print *p, FILE *out);
/* What is waiting written, and the buffer freed. */
void script_print_end(struct script_print *p, FILE *out);

#endif /* SECMAP_SCRIPT_PRINT_H */
