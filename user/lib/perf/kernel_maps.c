// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * perf's own view of kernel memory, for kernel addresses the recording
 * does not know: code the kernel announced with PERF_RECORD_KSYMBOL (BPF
 * programs and trampolines, ftrace and kprobe slots; perf record
 * synthesizes those loaded before it started), named as perf names them,
 * and perf's pid -1 maps of the kernel's text and its modules, which give
 * the module at least.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

static struct task *kernel_task(struct secmap_session *w, int32_t which)
{
	return walk_find_task(&w->kernel, which, true);
}

/*
 * A KSYMBOL registers its code from its time on. An unregister is not
 * replayed: no sample can land in code that is gone, and one the kernel
 * loads there later is a later map, which wins from its time.
 */
int walk_add_kernel_code(struct secmap_session *w, const struct secmap_perf_record *rec)
{
	struct task *t;
	const char *name;

	if (rec->ksym_flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER || !rec->len ||
	    !rec->ksym_name[0] || rec->start + rec->len < rec->start)
		return 0;
	t = kernel_task(w, KERNEL_CODE);
	name = walk_intern(&w->strings, rec->ksym_name);
	if (!t || !name)
		return -ENOMEM;
	return walk_add_map(t, rec, name, false);
}

/*
 * perf's short name of a kernel map: [kernel.kallsyms] for the kernel's
 * text ("[kernel.kallsyms]_text"), [name] for a module, by its file's name
 * without ".ko..." and with '-' as '_' (the kernel's module name), or as
 * perf wrote it when it had no file ("[name]").
 */
static void kernel_map_name(const char *path, char *buf, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t n, i;

	if (!strncmp(path, "[kernel.kallsyms]", 17)) {
		snprintf(buf, size, "[kernel.kallsyms]");
		return;
	}
	if (path[0] == '[') {
		snprintf(buf, size, "%s", path);
		return;
	}
	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	snprintf(buf, size, "[%.*s]", (int)n, base);
	for (i = 1; buf[i]; i++)
		if (buf[i] == '-')
			buf[i] = '_';
}

int walk_add_kernel_map(struct secmap_session *w, const struct secmap_perf_record *rec)
{
	char name[256];
	const char *dso;
	struct task *t;

	if (!rec->len)
		return 0;
	kernel_map_name(rec->filename, name, sizeof(name));
	t = kernel_task(w, KERNEL_MAPS);
	dso = walk_intern(&w->strings, name);
	if (!t || !dso)
		return -ENOMEM;
	return walk_add_map(t, rec, dso, false);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const char *const *)a, y = (uintptr_t)*(const char *const *)b;

	return x < y ? -1 : x > y;
}

/*
 * Whether the recording has module @name (interned): then its maps say
 * where that module is, and an address in none of them is not its, though
 * perf's map of it, from its base and size, spans the address (on 6.4 and
 * later the span may cover another module's memory, its freed init).
 */
static int recording_knows(struct secmap_session *w, const char *name, bool *known)
{
	SECMAP_OPTS(secmap_resolver_module, mod);
	size_t i, n = w->res ? secmap_resolver_nr_modules(w->res) : 0;

	if (!w->known_modules_built) {
		w->known_modules = n ? calloc(n, sizeof(*w->known_modules)) : NULL;
		if (n && !w->known_modules)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			if (secmap_resolver_module(w->res, i, &mod) || !mod.name)
				continue;
			w->known_modules[w->nr_known_modules] = walk_intern(&w->strings, mod.name);
			if (!w->known_modules[w->nr_known_modules])
				return -ENOMEM;
			w->nr_known_modules++;
		}
		/* qsort() and bsearch() take no NULL, even for no elements. */
		if (w->nr_known_modules)
			qsort(w->known_modules, w->nr_known_modules, sizeof(*w->known_modules),
			      cmp_ptr);
		w->known_modules_built = true;
	}
	*known = w->nr_known_modules && bsearch(&name, w->known_modules, w->nr_known_modules,
						sizeof(*w->known_modules), cmp_ptr);
	return 0;
}

int walk_kernel_fallback(struct secmap_session *w, uint64_t ip, uint64_t time,
			 struct secmap_frame *f)
{
	struct task *t = walk_find_task(&w->kernel, KERNEL_CODE, false);
	const struct user_map *m = t ? walk_find_map(t, ip, time) : NULL;
	char name[256];
	size_t n;

	if (m) {
		/* perf's dso and symbol both bear the code's name. */
		f->dso = f->module = f->symbol = m->path;
		f->symbol_offset = ip - m->start;
		f->map_start = m->start;
		f->map_end = m->end;
		return 0;
	}
	t = walk_find_task(&w->kernel, KERNEL_MAPS, false);
	m = t ? walk_find_map(t, ip, time) : NULL;
	if (!m)
		return 0;
	if (!strcmp(m->path, "[kernel.kallsyms]")) {
		f->dso = f->module = m->path;
		f->map_start = m->start;
		f->map_end = m->end;
		return 0;
	}
	/*
	 * A module: its name without perf's brackets, as the resolver names
	 * modules; interned once per run of frames in the same module.
	 */
	if (m->path != w->last_fallback_dso) {
		n = strlen(m->path);
		snprintf(name, sizeof(name), "%.*s", (int)(n > 2 ? n - 2 : 0), m->path + 1);
		w->last_fallback_module = walk_intern(&w->strings, name);
		if (!w->last_fallback_module ||
		    recording_knows(w, w->last_fallback_module, &w->last_fallback_known))
			return -ENOMEM;
		w->last_fallback_dso = m->path;
	}
	if (w->last_fallback_known)
		return 0;	/* the recording's maps of it hold no such address: unknown */
	f->dso = m->path;
	f->module = w->last_fallback_module;
	f->map_start = m->start;
	f->map_end = m->end;
	return 0;
}
