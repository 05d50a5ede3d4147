// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the /proc/modules and /sys/module readers
 * (secmap_snapshot_from_sysfs()), through a fake root. The input is cut at
 * 0xff bytes into /proc/modules, the sections ("NAME VALUE" lines, one file
 * each), the notes file and the taint file; every module /proc/modules
 * names (up to three, names usable as file names) gets those files.
 * The whole input is also a uevent datagram, taken as the uevent watch
 * takes one the kernel sent, over the same tree: its module's add reads it;
 * and module_load's format file and one of its perf samples, as the
 * load trace reads them.
 *
 *   make -C user fuzz [FUZZ_SECONDS=N]
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "secmap.h"

static char root[64];
static struct secmap_uevent_watch *uevents;	/* one for the run: a socket, a perf event */
static volatile size_t sink;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void put(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return;
	if (write(fd, buf, len) < 0)
		len = 0;
	close(fd);
}

/* A name that is one path component. */
static bool usable(const char *name, size_t len)
{
	return len && len < 60 && !memchr(name, '/', len) && !memchr(name, '\0', len) &&
	       !(len == 1 && name[0] == '.') && !(len == 2 && name[0] == '.' && name[1] == '.');
}

static void make_module(const char *name, size_t name_len, const char *secs, size_t secs_len,
			const uint8_t *notes, size_t notes_len, const char *taint, size_t taint_len)
{
	char dir[256], path[512];
	const char *line = secs, *end = secs + secs_len;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/sys/module/%.*s", root, (int)name_len, name);
	if (mkdir(dir, 0755))
		return;
	snprintf(path, sizeof(path), "%s/sections", dir);
	mkdir(path, 0755);
	while (line < end && n++ < 8) {
		const char *nl = memchr(line, '\n', end - line), *sp;
		size_t len = (nl ? nl : end) - line;

		sp = memchr(line, ' ', len);
		if (sp && usable(line, sp - line)) {
			snprintf(path, sizeof(path), "%s/sections/%.*s", dir, (int)(sp - line), line);
			put(path, sp + 1, len - (sp + 1 - line));
		}
		line += len + 1;
	}
	snprintf(path, sizeof(path), "%s/notes", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/notes/.note.gnu.build-id", dir);
	put(path, notes, notes_len);
	snprintf(path, sizeof(path), "%s/taint", dir);
	put(path, taint, taint_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t none[1];
	const uint8_t *part[4] = { data, none, none, none };
	size_t part_len[4] = { size, 0, 0, 0 };
	struct secmap_snapshot *snap = NULL;
	const char *line, *end;
	char path[128];
	size_t sum = 0, i, j;
	int modules = 0;

	if (!root[0]) {
		strcpy(root, "/tmp/secmap-sysfs-fuzz.XXXXXX");
		if (!mkdtemp(root))
			abort();
	}
	for (i = 1; i < 4; i++) {
		const uint8_t *cut = memchr(part[i - 1], 0xff, part_len[i - 1]);

		if (!cut)
			break;
		part[i] = cut + 1;
		part_len[i] = part_len[i - 1] - (cut + 1 - part[i - 1]);
		part_len[i - 1] = cut - part[i - 1];
	}
	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/module", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/modules", root);
	put(path, part[0], part_len[0]);
	line = (const char *)part[0];
	end = line + part_len[0];
	while (line < end && modules < 3) {
		const char *nl = memchr(line, '\n', end - line);
		size_t len = (nl ? nl : end) - line;
		const char *sp = memchr(line, ' ', len);
		size_t name_len = sp ? (size_t)(sp - line) : len;

		if (usable(line, name_len)) {
			make_module(line, name_len, (const char *)part[1], part_len[1], part[2],
				    part_len[2], (const char *)part[3], part_len[3]);
			modules++;
		}
		line += len + 1;
	}

	if (!secmap_snapshot_from_sysfs(root, &snap)) {
		for (i = 0; i < secmap_snapshot_module_count(snap); i++) {
			const struct secmap_module *mod = secmap_snapshot_module(snap, i);
			const uint8_t *id;
			size_t n = secmap_module_build_id(mod, &id);

			sum += strlen(secmap_module_name(mod));
			for (j = 0; j < n; j++)
				sum += id[j];
			for (j = 0; j < secmap_module_section_count(mod); j++)
				sum += strlen(secmap_section_name(secmap_module_section(mod, j)));
		}
		secmap_snapshot_free(snap);
	}
	if (uevents || !secmap_uevent_watch_open(root, &uevents)) {
		struct secmap_event *ev = NULL;

		if (!libsecmap_uevent_watch_take(uevents, (const char *)data, size, &ev)) {
			const struct secmap_module *mod = secmap_event_module(ev);

			sum += strlen(secmap_module_name(mod)) + secmap_module_section_count(mod);
			secmap_event_free(ev);
		}
	}
	{
		struct libsecmap_load_sample sample;
		char *text = malloc(size + 1);
		uint32_t offset = 12;
		uint64_t id;

		if (text) {
			memcpy(text, data, size);
			text[size] = '\0';
			if (!libsecmap_load_trace_parse_format(text, &id, &offset))
				sum += id + offset;
			free(text);
		}
		if (!libsecmap_load_trace_parse_sample(data, size, size ? data[0] % 64 : 12, &sample))
			sum += strlen(sample.name) + sample.time + sample.tid;
	}
	sink = sum;
	snprintf(path, sizeof(path), "%s/proc", root);
	nftw(path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	snprintf(path, sizeof(path), "%s/sys", root);
	nftw(path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}
