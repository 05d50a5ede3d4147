// SPDX-License-Identifier: GPL-2.0
/*
 * secmap report's output: the table as perf report prints it (columns as
 * wide as their widest cell, perf's elided columns and header lines), or
 * as JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "json_out.h"
#include "report.h"

/* The text of @r's cell for key @k, safe to print. */
static const char *cell(const struct report_opts *o, enum sort_key k, const struct row *r,
			char *buf, size_t size)
{
	switch (k) {
	case KEY_COMM:
		return text_safe(r->comm ? r->comm : "[unknown]");
	case KEY_PID:
	case KEY_TID:
		snprintf(buf, size, "%7d:%s", (int)r->tid, text_safe(r->comm ? r->comm : ""));
		return buf;
	case KEY_CPU:
		if (!r->has_cpu)
			return "-";
		snprintf(buf, size, "%03u", r->cpu);
		return buf;
	case KEY_DSO:
		if (!r->dso)
			return "[unknown]";
		return text_safe(o->verbose ? r->dso : dso_short_name(r->dso, buf, size));
	case KEY_MODULE:
		return text_safe(r->module ? r->module : "[unknown]");
	case KEY_SECTION:
		return r->section ? text_safe(r->section) : "-";
	case KEY_SYMBOL:
		return text_safe(r->symbol ? r->symbol : "[unknown]");
	case KEY_SYM:
		if (r->symbol)
			snprintf(buf, size, "[%c] %s", r->user ? '.' : 'k', text_safe(r->symbol));
		else
			snprintf(buf, size, "[%c] %#.16" PRIx64, r->user ? '.' : 'k', r->addr);
		return buf;
	case NR_KEYS:
		break;
	}
	return "";
}

/* Characters, not bytes: a UTF-8 name pads as it shows. */
static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}


static double percent_of(const struct totals *tot, const struct row *r, uint64_t period)
{
	uint64_t base = tot->base[r->event];

	return base ? 100.0 * (double)period / (double)base : 0.0;
}

static double percent(const struct totals *tot, const struct row *r)
{
	return percent_of(tot, r, r->period);
}

/* --percent-limit: of the children with --children, as perf's first column. */
static bool shown(const struct report_opts *o, const struct totals *tot, const struct row *r)
{
	return percent_of(tot, r, o->children ? r->children : r->period) >= o->percent_limit;
}

/* What perf says of a column it leaves out: "# comm: NAME". */
static void print_elided(const struct report_opts *o)
{
	static const struct {
		enum sort_key key;
		const char *name;
	} said[] = { { KEY_COMM, "comm" }, { KEY_DSO, "dso" }, { KEY_SYM, "symbol" } };
	char *const *value[NR_KEYS] = {
		[KEY_COMM] = o->filter.comms, [KEY_DSO] = o->filter.dsos,
		[KEY_SYM] = o->filter.symbols,
	};
	size_t i, j;

	for (i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		for (j = 0; j < o->nr_columns && o->column[j] != said[i].key; j++)
			;
		if (o->keys.has[said[i].key] && j == o->nr_columns)
			printf("# %s: %s\n", said[i].name, text_safe(value[said[i].key][0]));
	}
}

/*
 * perf's columns: a comm, dso or sym key that a filter of one name fixes
 * is left out, unless every key would be.
 */
void report_set_columns(struct report_opts *o)
{
	bool fixed[NR_KEYS] = {
		[KEY_COMM] = o->filter.nr_comms == 1, [KEY_DSO] = o->filter.nr_dsos == 1,
		[KEY_SYM] = o->filter.nr_symbols == 1,
	};
	size_t i;

	o->nr_columns = 0;
	for (i = 0; i < o->keys.nr; i++)
		if (!fixed[o->keys.key[i]])
			o->column[o->nr_columns++] = o->keys.key[i];
	if (o->nr_columns)
		return;
	memcpy(o->column, o->keys.key, o->keys.nr * sizeof(o->column[0]));
	o->nr_columns = o->keys.nr;
}

static void print_header(const struct report_opts *o, const size_t *width)
{
	size_t i, k;

	printf(o->children ? "#  Children      Self   Samples" : "# Overhead   Samples");
	for (i = 0; i < o->nr_columns; i++) {
		k = o->column[i];
		printf("  %s%*s", key_info[k].title, i + 1 < o->nr_columns ?
		       (int)(width[i] - strlen(key_info[k].title)) : 0, "");
	}
	printf(o->children ? "\n# .........  ........  ........" : "\n# ........  ........");
	for (i = 0; i < o->nr_columns; i++) {
		printf("  ");
		for (k = 0; k < width[i]; k++)
			putchar('.');
	}
	printf("\n#\n");
}

/*
 * -F's cell of @r in column @c: perf's "%.2f%%" overheads, numbers
 * and the keys' text.
 */
static const char *field_cell(const struct report_opts *o, const struct report_column *c,
			      const struct totals *tot, const struct row *r, char *buf, size_t size)
{
	switch (c->field) {
	case FIELD_OVERHEAD:
		snprintf(buf, size, "%.2f%%", percent(tot, r));
		return buf;
	case FIELD_CHILDREN:
		snprintf(buf, size, "%.2f%%", percent_of(tot, r, r->children));
		return buf;
	case FIELD_SAMPLE:
		snprintf(buf, size, "%" PRIu64, r->samples);
		return buf;
	case FIELD_PERIOD:
		snprintf(buf, size, "%" PRIu64, r->period);
		return buf;
	case FIELD_KEY:
		break;
	}
	return cell(o, c->key, r, buf, size);
}

static const char *field_title(const struct report_column *c)
{
	static const char *const titles[] = {
		[FIELD_OVERHEAD] = "Overhead", [FIELD_CHILDREN] = "Children",
		[FIELD_SAMPLE] = "Samples", [FIELD_PERIOD] = "Period",
	};

	return c->field == FIELD_KEY ? key_info[c->key].title : titles[c->field];
}

/*
 * -F: the columns given, numbers right-aligned and keys left-aligned,
 * each as wide as its widest cell or title, two spaces apart, as perf.
 */
static void print_fields(const struct report_opts *o, const struct row *rows, size_t nr,
			 const struct totals *tot, const size_t *width)
{
	char buf[1200];
	size_t i, j;

	for (i = 0; i < nr; i++) {
		const struct row *r = &rows[i];

		if (!shown(o, tot, r))
			continue;
		printf(" ");
		for (j = 0; j < o->nr_fields; j++) {
			const char *s = field_cell(o, &o->fields[j], tot, r, buf, sizeof(buf));
			size_t pad = width[j] - text_width(s);
			bool left = o->fields[j].field == FIELD_KEY;

			printf(" %*s%s", left ? 0 : (int)pad, "", s);
			if (left && j + 1 < o->nr_fields)
				printf("%*s", (int)pad, "");
			printf(j + 1 < o->nr_fields ? " " : "\n");
		}
		if (o->chains)
			report_graph_print(o->chains, r, tot->base[r->event]);
	}
}

/* -F's header lines and the widths of the event's columns into @width. */
static void print_fields_header(const struct report_opts *o, const struct row *rows, size_t nr,
				const struct totals *tot, size_t *width)
{
	char buf[1200];
	size_t i, j, k;

	for (j = 0; j < o->nr_fields; j++)
		width[j] = strlen(field_title(&o->fields[j]));
	for (i = 0; i < nr; i++) {
		if (!shown(o, tot, &rows[i]))
			continue;
		for (j = 0; j < o->nr_fields; j++) {
			size_t n = text_width(field_cell(o, &o->fields[j], tot, &rows[i], buf,
							 sizeof(buf)));

			if (n > width[j])
				width[j] = n;
		}
	}
	printf("#");
	for (j = 0; j < o->nr_fields; j++) {
		const char *t = field_title(&o->fields[j]);
		int pad = (int)(width[j] - strlen(t));

		if (o->fields[j].field == FIELD_KEY)
			printf(" %s%*s", t, j + 1 < o->nr_fields ? pad : 0, "");
		else
			printf(" %*s%s", pad, "", t);
		printf(j + 1 < o->nr_fields ? " " : "\n");
	}
	printf("#");
	for (j = 0; j < o->nr_fields; j++) {
		printf(" ");
		for (k = 0; k < width[j]; k++)
			putchar('.');
		printf(j + 1 < o->nr_fields ? " " : "\n");
	}
	printf("#\n");
}

void report_print_stdio(struct sample_walk *w, const struct report_opts *o,
			       const struct row *rows, size_t nr, const struct totals *tot)
{
	const struct sample_walk_lost *lost = sample_walk_lost(w);
	size_t i, j, ev = SIZE_MAX, width[NR_KEYS];
	char buf[1200];

	printf("# secmap report of %s: module samples placed by their section maps\n#\n",
	       sample_walk_input(w));
	if (!o->nr_fields)
		print_elided(o);
	if (lost->chunks || lost->samples)
		printf("# Lost: %" PRIu64 " events in %" PRIu64 " chunks, %" PRIu64
		       " samples (perf's buffers were full)\n#\n", lost->events, lost->chunks,
		       lost->samples);
	for (i = 0; i < nr; i++) {
		const struct row *r = &rows[i];

		if (r->event != ev) {
			size_t end;

			ev = r->event;
			/* The columns as wide as the event's widest cell shown. */
			for (j = 0; j < o->nr_columns; j++)
				width[j] = strlen(key_info[o->column[j]].title);
			for (end = i; end < nr && rows[end].event == ev; end++) {
				if (!shown(o, tot, &rows[end]))
					continue;
				for (j = 0; j < o->nr_columns; j++) {
					size_t n = text_width(cell(o, o->column[j], &rows[end], buf,
								   sizeof(buf)));

					if (n > width[j])
						width[j] = n;
				}
			}
			printf("%s# Samples: %" PRIu64 " of event '%s'\n#\n", i ? "\n\n" : "",
			       tot->samples[ev], text_safe(sample_walk_event_name(w, ev)));
			if (o->nr_fields) {
				size_t fwidth[MAX_FIELDS];

				print_fields_header(o, rows + i, end - i, tot, fwidth);
				print_fields(o, rows + i, end - i, tot, fwidth);
				i = end - 1;
				continue;
			}
			print_header(o, width);
		}
		if (!shown(o, tot, r))
			continue;
		if (o->children)
			printf("%10.2f%%  ", percent_of(tot, r, r->children));
		printf("%9.2f%%  %8" PRIu64, percent(tot, r), r->samples);
		for (j = 0; j < o->nr_columns; j++) {
			const char *s = cell(o, o->column[j], r, buf, sizeof(buf));

			printf("  %s", s);
			if (j + 1 < o->nr_columns)
				printf("%*s", (int)(width[j] - text_width(s)), "");
		}
		printf("\n");
		if (o->chains)
			report_graph_print(o->chains, r, tot->base[r->event]);
	}
}

static void json_row_keys(struct json_out *out, const struct report_opts *o, const struct row *r)
{
	char name[64];
	size_t i;

	for (i = 0; i < o->keys.nr; i++) {
		switch (o->keys.key[i]) {
		case KEY_COMM:
			json_out_str(out, "comm", r->comm);
			break;
		case KEY_PID:
		case KEY_TID:
			if (r->tid >= 0)
				json_out_u64(out, "tid", (uint64_t)r->tid);
			else
				json_out_null(out, "tid");
			if (!o->keys.has[KEY_COMM])
				json_out_str(out, "comm", r->comm);
			break;
		case KEY_CPU:
			if (r->has_cpu)
				json_out_u64(out, "cpu", r->cpu);
			else
				json_out_null(out, "cpu");
			break;
		case KEY_DSO:
			json_out_str(out, "dso", r->dso);
			json_out_str(out, "dso_short", r->dso ? dso_short_name(r->dso, name,
									     sizeof(name)) : NULL);
			break;
		case KEY_MODULE:
			json_out_str(out, "module", r->module);
			break;
		case KEY_SECTION:
			json_out_str(out, "section", r->section);
			break;
		case KEY_SYMBOL:
		case KEY_SYM:
			json_out_str(out, "symbol", r->symbol);
			if (o->keys.key[i] == KEY_SYM && !r->symbol)
				json_out_hex(out, "addr", r->addr);
			break;
		case NR_KEYS:
			break;
		}
	}
}

int report_print_json(struct sample_walk *w, const struct report_opts *o,
			     const struct row *rows, size_t nr, const struct totals *tot)
{
	struct json_out *out = json_out_stream(stdout, pretty_output);
	size_t i = 0, ev, nr_events = sample_walk_nr_events(w);
	const struct sample_walk_lost *lost = sample_walk_lost(w);

	if (!out)
		return -ENOMEM;
	json_out_object_begin(out, NULL);
	json_out_object_begin(out, "lost");
	json_out_u64(out, "chunks", lost->chunks);
	json_out_u64(out, "events", lost->events);
	json_out_u64(out, "samples", lost->samples);
	json_out_object_end(out);
	json_out_array_begin(out, "events");
	for (ev = 0; ev < nr_events; ev++) {
		json_out_object_begin(out, NULL);
		json_out_str(out, "event", sample_walk_event_name(w, ev));
		json_out_u64(out, "samples", tot->samples[ev]);
		json_out_u64(out, "period", tot->period[ev]);
		json_out_array_begin(out, "rows");
		for (; i < nr && rows[i].event == ev; i++) {
			const struct row *r = &rows[i];

			if (!shown(o, tot, r))
				continue;
			json_out_object_begin(out, NULL);
			json_out_u64(out, "samples", r->samples);
			json_out_u64(out, "period", r->period);
			if (o->children)
				json_out_u64(out, "children", r->children);
			json_row_keys(out, o, r);
			json_out_object_end(out);
		}
		json_out_array_end(out);
		json_out_object_end(out);
	}
	json_out_array_end(out);
	json_out_object_end(out);
	return json_out_finish(out);
}

/*
 * --header: what perf report --header says of the perf.data (the same
 * lines, for the features secmap reads), then the recording secmap uses.
 */
int report_print_header(struct sample_walk *w)
{
	struct secmap_perf_header h = { .sz = sizeof(h) };
	const struct secmap_resolver *res = sample_walk_resolver(w);
	int ret = sample_walk_header(w, &h);
	const struct {
		const char *name, *value;
	} strings[] = {
		{ "hostname", h.hostname }, { "os release", h.os_release },
		{ "perf version", h.perf_version }, { "arch", h.arch },
	};
	struct stat st;
	char when[64];
	size_t i;

	if (ret)
		return ret;
	printf("# ========\n");
	if (!stat(sample_walk_input(w), &st) && ctime_r(&st.st_mtime, when))
		printf("# captured on    : %s", when);
	printf("# header version : 1\n# data offset    : %" PRIu64 "\n# data size      : %" PRIu64
	       "\n# feat offset    : %" PRIu64 "\n", h.data_offset, h.data_size, h.feat_offset);
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (strings[i].value)
			printf("# %s : %s\n", strings[i].name, text_safe(strings[i].value));
	if (h.nr_cpus_avail)
		printf("# nrcpus online : %u\n# nrcpus avail : %u\n", h.nr_cpus_online,
		       h.nr_cpus_avail);
	if (h.cpu_desc)
		printf("# cpudesc : %s\n", text_safe(h.cpu_desc));
	if (h.cpuid)
		printf("# cpuid : %s\n", text_safe(h.cpuid));
	if (h.total_mem_kb)
		printf("# total memory : %" PRIu64 " kB\n", h.total_mem_kb);
	if (h.cmdline)
		printf("# cmdline : %s \n", text_safe(h.cmdline));
	for (i = 0; i < sample_walk_nr_events(w); i++)
		printf("# event : name = %s\n", text_safe(sample_walk_event_name(w, i)));
	if (h.has_sample_time) {
		printf("# time of first sample : %" PRIu64 ".%06" PRIu64 "\n",
		       h.first_sample_time / 1000000000, h.first_sample_time % 1000000000 / 1000);
		printf("# time of last sample : %" PRIu64 ".%06" PRIu64 "\n",
		       h.last_sample_time / 1000000000, h.last_sample_time % 1000000000 / 1000);
		printf("# sample duration : %10.3f ms\n",
		       (double)(h.last_sample_time - h.first_sample_time) / 1e6);
	}
	printf("# secmap recording : %zu module builds, %zu section maps, %zu kernel symbols\n",
	       secmap_resolver_nr_modules(res), secmap_resolver_nr_maps(res),
	       secmap_resolver_nr_kernel_symbols(res));
	printf("# ========\n#\n");
	return SECMAP_EXIT_OK;
}

