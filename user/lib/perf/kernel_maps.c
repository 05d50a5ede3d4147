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
	f->dso = m->path;
	f->map_start = m->start;
	f->map_end = m->end;
	if (!strcmp(m->path, "[kernel.kallsyms]")) {
		f->module = m->path;
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
		if (!w->last_fallback_module)
			return -ENOMEM;
		w->last_fallback_dso = m->path;
	}
	f->module = w->last_fallback_module;
	return 0;
}
