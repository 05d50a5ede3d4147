// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The resolver's symbols: each module build's from its .ko (found as
 * secmap_ko_find() does, or through a live resolver's pool), and the core
 * kernel's text symbols from the recording's kallsyms, read line by line
 * as its pieces come, moved by KASLR's offset, and indexed by address.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "resolver.h"

static bool is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* One kallsyms line, "ffffffff81000000 T _text", @len bytes without its newline. */
static int kallsyms_line(struct secmap_resolver *res, const char *line, size_t len)
{
	const char *name;
	size_t name_len;
	uint32_t name_off;
	uint64_t addr;
	char type;

	if (!libsecmap_kallsyms_parse(line, len, &addr, &type, &name, &name_len) || !addr ||
	    !is_text_type(type))
		return 0;
	if (memchr(name, '\t', name_len) || memchr(name, '\0', name_len))
		return 0;	/* a module's ("\t[mod]"), or not a line */
	if (res->nr_ksyms == res->ksyms_cap) {
		size_t cap = res->ksyms_cap ? 2 * res->ksyms_cap : 4096;
		struct rs_kernel_sym *k = realloc(res->ksyms, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		res->ksyms = k;
		res->ksyms_cap = cap;
	}
	/*
	 * A name that ends the one before shares its bytes: since 6.2 most
	 * functions have a __pfx_ symbol, their padding, just before them.
	 * That is 40% of a kernel's names' bytes.
	 */
	if (res->nr_ksyms) {
		/* The name last placed ends the names: its NUL is the last byte. */
		size_t last_end = res->kernel_names_len - 1;

		if (last_end - res->last_name_off >= name_len &&
		    !memcmp(res->kernel_names + last_end - name_len, name, name_len)) {
			name_off = (uint32_t)(last_end - name_len);
			goto add;
		}
	}
	if (res->kernel_names_len + name_len + 1 > UINT32_MAX)
		return -EFBIG;
	if (res->kernel_names_len + name_len + 1 > res->kernel_names_cap) {
		size_t cap = res->kernel_names_cap ? 2 * res->kernel_names_cap : 65536;
		char *n;

		while (cap < res->kernel_names_len + name_len + 1)
			cap *= 2;
		n = realloc(res->kernel_names, cap);
		if (!n)
			return -ENOMEM;
		res->kernel_names = n;
		res->kernel_names_cap = cap;
	}
	name_off = (uint32_t)res->kernel_names_len;
	memcpy(res->kernel_names + res->kernel_names_len, name, name_len);
	res->kernel_names_len += name_len;
	res->kernel_names[res->kernel_names_len++] = '\0';
	res->last_name_off = name_off;
add:
	if (name_len == 5 && !memcmp(name, "_text", 5) && !res->ksym_text)
		res->ksym_text = addr;
	else if (name_len == 6 && !memcmp(name, "_stext", 6) && !res->ksym_stext)
		res->ksym_stext = addr;
	if (res->nr_ksyms && res->ksyms[res->nr_ksyms - 1].addr > addr)
		res->ksyms_sorted = false;
	res->ksyms[res->nr_ksyms].addr = addr;
	res->ksyms[res->nr_ksyms].name_off = name_off;
	res->nr_ksyms++;
	return 0;
}

/*
 * The recorder splits kallsyms into pieces anywhere, lines included: whole
 * lines are read at once, a cut one waits for the rest. Only text symbols'
 * names are kept (a few MiB of text would otherwise stay resident).
 */
int rs_add_kallsyms(struct secmap_resolver *res, const struct secmap_record *rec)
{
	const char *p = rec->text, *end = rec->text + rec->text_len, *nl;
	int err;

	if (rec->text_offset != res->kallsyms_len)
		return -EBADMSG;	/* pieces out of order: not what a recorder writes */
	res->kallsyms_len += rec->text_len;
	if (!res->nr_ksyms && !res->partial_len)
		res->ksyms_sorted = true;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			char *part = realloc(res->partial, res->partial_len + (size_t)(end - p));

			if (!part)
				return -ENOMEM;
			memcpy(part + res->partial_len, p, (size_t)(end - p));
			res->partial = part;
			res->partial_len += (size_t)(end - p);
			return 0;
		}
		if (res->partial_len) {
			char *part = realloc(res->partial, res->partial_len + (size_t)(nl - p));

			if (!part)
				return -ENOMEM;
			memcpy(part + res->partial_len, p, (size_t)(nl - p));
			err = kallsyms_line(res, part, res->partial_len + (size_t)(nl - p));
			free(part);
			res->partial = NULL;
			res->partial_len = 0;
		} else {
			err = kallsyms_line(res, p, (size_t)(nl - p));
		}
		if (err)
			return err;
		p = nl + 1;
	}
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct libsecmap_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* The larger first at one address: the last that covers wins, the innermost. */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	/* Aliases (init_module and the init function): the global, plain name last, to win. */
	if (x->global != y->global)
		return x->global ? 1 : -1;
	if ((x->name[0] == '_') != (y->name[0] == '_'))
		return x->name[0] == '_' ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct rs_kernel_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}


/* The symbols of @b's sections, from its opened .ko of the right build. */
static int read_build_symbols(struct secmap_resolver *res, struct rs_build *b)
{
	const uint8_t *id;
	size_t i, j, len;
	int err;

	len = secmap_ko_build_id(b->ko, &id);
	if (b->id_len && (len != b->id_len || memcmp(id, b->id, len)) && !res->opts.force) {
		b->err = -ESTALE;
		b->ko = NULL;
		return 0;
	}
	for (i = 0; i < b->nr_secs; i++) {
		struct rs_section *s = &b->secs[i];
		struct secmap_ko_symbol *syms;
		SECMAP_OPTS(secmap_ko_section, info);
		size_t nr, n = 0;

		if (secmap_ko_section(b->ko, s->name, &info)) {
			s->err = -ENOENT;
			continue;
		}
		s->size = info.size;
		s->offset = info.offset;
		err = secmap_ko_section_symbols(b->ko, s->name, &syms, &nr);
		if (err == -ENOMEM)
			return err;
		if (err || !nr) {
			s->err = err ? err : -ENODATA;
			free(syms);
			continue;
		}
		s->syms = calloc(nr, sizeof(*s->syms));
		if (!s->syms) {
			free(syms);
			return -ENOMEM;
		}
		for (j = 0; j < nr; j++) {
			/* Code resolves to functions; data symbols in code are labels. */
			if (!syms[j].func && (info.flags & SHF_EXECINSTR))
				continue;
			s->syms[n].start = syms[j].value;
			s->syms[n].end = syms[j].size ? syms[j].value + syms[j].size : 0;
			s->syms[n].name = syms[j].name;
			s->syms[n].global = syms[j].global;
			n++;
		}
		free(syms);
		qsort(s->syms, n, sizeof(*s->syms), cmp_sym);
		/* Unsized symbols run to the next one, or the section's end. */
		for (j = 0; j < n; j++)
			if (!s->syms[j].end)
				s->syms[j].end = j + 1 < n ? s->syms[j + 1].start : info.size;
		s->nr_syms = n;
	}
	return 0;
}

/* The symbols of every section a build's maps name, from its .ko. */
int rs_load_build(struct secmap_resolver *res, struct rs_build *b)
{
	const char *path;
	int err;

	if (res->opts.no_ko) {
		b->err = -ENOENT;
		return 0;
	}
	/*
	 * The image stays open in the pool (symbol names point into it):
	 * without a total, a few small .ko.zst bombs, each under the cap of
	 * one file, would hold gigabytes. -EDQUOT once spent; plain .ko
	 * files cost nothing.
	 */
	err = libsecmap_ko_pool_get(res->ko_pool, &res->search, b->name, b->id_len ? b->id : NULL,
				    b->id_len, &path, &b->ko);
	if (err == -ENOMEM)
		return err;
	if (path) {
		b->path = strdup(path);
		if (!b->path)
			return -ENOMEM;
	}
	b->err = err;
	if (err)
		libsecmap_pr(SECMAP_PRINT_INFO, "module %s: %s%s%s", b->name,
			     err == -ENOENT ? "no .ko found" : secmap_strerror(err),
			     path ? ": " : "", path ? path : "");
	err = b->ko ? read_build_symbols(res, b) : 0;
	if (!err && b->err == -ESTALE)
		libsecmap_pr(SECMAP_PRINT_INFO, "module %s: %s has another build-id; not used",
			     b->name, b->path ? b->path : "its .ko");
	return err;
}


/*
 * A binary search over 100 000 symbols and more mispredicts a branch and
 * misses the cache at nearly every step; so did one over every 64th
 * symbol's address, then within a block of 64. Buckets of the address
 * space, a few symbols each, take a shift and a short search: secmap
 * report of a recording 80% in the kernel took 190 ms instead of 262.
 * There is about one bucket of 4 bytes for every KSYM_PER_BUCKET symbols
 * (fewer when the text is sparse): 159 KiB for this host's 122 000, next
 * to their 1.4 MiB.
 */
#define KSYM_PER_BUCKET 2

static int index_kernel_symbols(struct secmap_resolver *res)
{
	uint64_t base, span, start;
	size_t b, n, j;

	if (!res->nr_ksyms)
		return 0;
	if (res->nr_ksyms > UINT32_MAX)
		return -EFBIG;
	base = res->ksyms[0].addr;
	span = res->kernel_end - base;
	for (res->ksym_shift = 6;
	     res->ksym_shift < 63 && (span >> res->ksym_shift) > res->nr_ksyms / KSYM_PER_BUCKET;
	     res->ksym_shift++)
		;
	n = (size_t)(span >> res->ksym_shift) + 1;	/* a spare one at most */
	res->ksym_first = malloc((n + 1) * sizeof(*res->ksym_first));
	if (!res->ksym_first)
		return -ENOMEM;
	for (b = 0, j = 0; b < n; b++) {
		start = base + ((uint64_t)b << res->ksym_shift);
		while (j + 1 < res->nr_ksyms && res->ksyms[j + 1].addr <= start)
			j++;
		res->ksym_first[b] = (uint32_t)j;
	}
	res->ksym_first[n] = (uint32_t)(res->nr_ksyms - 1);
	return 0;
}

/*
 * kallsyms from another boot of the same build (a build-id cache's copy
 * given to a recording without its own) is shifted by KASLR: moved, as
 * perf moves it, so that its reference symbol sits where the recording
 * saw it. A recording's own kallsyms has the offset 0.
 */
static void relocate_kallsyms(struct secmap_resolver *res)
{
	uint64_t at = res->ref_is_stext ? res->ksym_stext : res->ksym_text, delta;
	size_t i;

	if (!res->have_ref_addr || !at || at == res->ref_addr)
		return;
	delta = res->ref_addr - at;
	for (i = 0; i < res->nr_ksyms; i++)
		res->ksyms[i].addr += delta;
	/* A crafted shift may wrap around the top: sorted again then. */
	res->ksyms_sorted = false;
}

/* The kallsyms read: a last line without newline, names placed, order. */
int rs_parse_kallsyms(struct secmap_resolver *res)
{
	int err;

	if (res->partial_len) {
		err = kallsyms_line(res, res->partial, res->partial_len);
		free(res->partial);
		res->partial = NULL;
		res->partial_len = 0;
		if (err)
			return err;
	}
	relocate_kallsyms(res);
	/* /proc/kallsyms lists the core in address order, mostly: sort only if not. */
	if (res->nr_ksyms && !res->ksyms_sorted)
		qsort(res->ksyms, res->nr_ksyms, sizeof(*res->ksyms), cmp_ksym);
	/*
	 * Core text runs to a page after the last text symbol: past _etext
	 * come .init.text and friends (start_kernel), which samples can reach.
	 */
	if (res->nr_ksyms) {
		res->kernel_end = res->ksyms[res->nr_ksyms - 1].addr + 4096;
		/* A recording's last symbol in the top page: its text ends with the space. */
		if (res->kernel_end < 4096)
			res->kernel_end = UINT64_MAX;
	}
	return index_kernel_symbols(res);
}

