// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM tests of the secmap dump: what the family reports must be exactly
 * what /sys/module/NAME/sections shows, for every loaded module, including
 * ones loaded after secmap and gone after unload.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <stdbool.h>

#include <json-c/json.h>

#include "kselftest_harness.h"
#include "secmap.h"
#include "vm_util.h"

struct sysfs_section {
	char name[NAME_MAX + 1];
	uint64_t addr;
};

/* All sections of one module as sysfs shows them; returns the count or -errno. */
static int read_sysfs_sections(const char *module, struct sysfs_section *out, int max)
{
	char path[512];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/module/%s/sections", module);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char file[PATH_MAX], buf[64];
		ssize_t len;
		int fd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == max) {
			closedir(dir);
			return -E2BIG;
		}
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		fd = open(file, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		snprintf(out[n].name, sizeof(out[n].name), "%s", de->d_name);
		out[n].addr = strtoull(buf, NULL, 16);
		n++;
	}
	closedir(dir);
	return n;
}

/* Names of the modules with a sections directory, i.e. loaded ones. */
static int list_sysfs_modules(char names[][NAME_MAX + 1], int max)
{
	struct dirent *de;
	int n = 0;
	DIR *dir = opendir("/sys/module");

	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && n < max) {
		char path[512];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/module/%s/sections", de->d_name);
		if (access(path, F_OK))
			continue;
		snprintf(names[n++], NAME_MAX + 1, "%s", de->d_name);
	}
	closedir(dir);
	return n;
}

/* Asserts that the dump of @name matches sysfs exactly, both ways. */
static void expect_module_matches_sysfs(struct __test_metadata *_metadata,
					const struct secmap_snapshot *snap, const char *name)
{
	static struct sysfs_section sysfs[1024];
	const struct secmap_module *mod = secmap_snapshot_find(snap, name);
	int n, i;

	EXPECT_NE(NULL, mod) TH_LOG("module %s missing from dump", name);
	if (!mod)
		return;
	n = read_sysfs_sections(name, sysfs, 1024);
	ASSERT_GT(n, 0) TH_LOG("%s: no sysfs sections (%d)", name, n);
	/* .data..percpu is the one section secmap adds: it lost SHF_ALLOC at load. */
	EXPECT_EQ((size_t)n + !!secmap_module_find_section(mod, ".data..percpu"),
		  secmap_module_section_count(mod))
		TH_LOG("%s: sysfs has %d sections, dump %zu", name, n,
		       secmap_module_section_count(mod));
	for (i = 0; i < n; i++) {
		const struct secmap_section *sec = secmap_module_find_section(mod, sysfs[i].name);

		EXPECT_NE(NULL, sec) TH_LOG("%s: section %s missing from dump", name, sysfs[i].name);
		if (sec)
			EXPECT_EQ(sysfs[i].addr, secmap_section_addr(sec))
				TH_LOG("%s %s: sysfs 0x%" PRIx64 " dump 0x%" PRIx64, name,
				       sysfs[i].name, sysfs[i].addr, secmap_section_addr(sec));
	}
}

TEST(every_loaded_module_matches_sysfs)
{
	static char names[4096][NAME_MAX + 1];
	struct secmap_snapshot *snap = dump(_metadata);
	struct secmap_client *client;
	int n, i;

	ASSERT_NE(NULL, snap);
	n = list_sysfs_modules(names, 4096);
	ASSERT_GT(n, 0);
	/* Same set of modules both ways, then the same sections. */
	EXPECT_EQ((size_t)n, secmap_snapshot_module_count(snap));
	for (i = 0; i < n; i++)
		expect_module_matches_sysfs(_metadata, snap, names[i]);
	secmap_snapshot_free(snap);

	/* And one by one through GET. */
	ASSERT_EQ(0, secmap_client_open(&client));
	for (i = 0; i < n; i++) {
		int ret = secmap_client_get(client, names[i], &snap);

		EXPECT_EQ(0, ret) TH_LOG("get %s: %s", names[i], secmap_strerror(ret));
		if (ret)
			continue;
		EXPECT_EQ(1, secmap_snapshot_module_count(snap));
		expect_module_matches_sysfs(_metadata, snap, names[i]);
		secmap_snapshot_free(snap);
	}
	secmap_client_close(client);
}

TEST(test_module_has_every_section_kind)
{
	static const char * const kinds[] = {
		".text", ".text.unlikely", ".init.text", ".exit.text", ".data", ".rodata",
		"secmap_custom",
	};
	const char *ko = TEST_MODULE_DIR "/secmap_test_sections.ko";
	struct secmap_snapshot *snap = dump(_metadata);
	const struct secmap_module *mod;
	size_t i;

	ASSERT_NE(NULL, snap);
	mod = secmap_snapshot_find(snap, "secmap_test_sections");
	ASSERT_NE(NULL, mod);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const char *kind = kinds[i];
		bool found = secmap_module_find_section(mod, kind);

		if (!ko_has_section(ko, kind)) {
			/* Newer scripts/module.lds fold .text.* into .text (seen on 7.2). */
			EXPECT_STREQ(".text.unlikely", kind) TH_LOG("test module built without %s", kind);
			TH_LOG("%s: the kernel's module linker script merged it away", kind);
			continue;
		}
		EXPECT_TRUE(found) TH_LOG("secmap_test_sections lacks %s", kind);
	}
	expect_module_matches_sysfs(_metadata, snap, "secmap_test_sections");
	/* secmap sees itself: it went live after its own notifier was registered. */
	expect_module_matches_sysfs(_metadata, snap, "secmap");
	secmap_snapshot_free(snap);
}

TEST(real_debian_modules_are_reported)
{
	struct secmap_snapshot *snap = dump(_metadata);
	char name[64];
	int checked = 0;
	FILE *list;

	ASSERT_NE(NULL, snap);
	list = fopen(REAL_MODULE_LIST, "r");
	ASSERT_NE(NULL, list) TH_LOG("%s: %s", REAL_MODULE_LIST, strerror(errno));
	while (fscanf(list, "%63s", name) == 1) {
		expect_module_matches_sysfs(_metadata, snap, name);
		checked++;
	}
	fclose(list);
	EXPECT_GE(checked, 3) TH_LOG("only %d real modules loaded in the VM", checked);
	secmap_snapshot_free(snap);
}

/* Loads @file after secmap, checks it appears, unloads, checks it is gone. */
static void load_dump_unload(struct __test_metadata *_metadata, const char *file,
			     const char *name)
{
	struct secmap_snapshot *snap;
	int ret;

	ret = load_module(file);
	ASSERT_EQ(0, ret) TH_LOG("loading %s: %s", file, strerror(-ret));

	snap = dump(_metadata);
	ASSERT_NE(NULL, snap);
	expect_module_matches_sysfs(_metadata, snap, name);
	secmap_snapshot_free(snap);

	ret = unload_module(name);
	ASSERT_EQ(0, ret) TH_LOG("unloading %s: %s", name, strerror(-ret));

	snap = dump(_metadata);
	ASSERT_NE(NULL, snap);
	EXPECT_EQ(NULL, secmap_snapshot_find(snap, name)) TH_LOG("%s still in dump", name);
	secmap_snapshot_free(snap);
}

TEST(test_module_loaded_later_appears_then_goes)
{
	load_dump_unload(_metadata, TEST_MODULE_DIR "/secmap_test_late.ko", "secmap_test_late");
}

TEST(real_module_loaded_later_appears_then_goes)
{
	load_dump_unload(_metadata, LATE_MODULE_DIR "/ifb.ko", "ifb");
}

/* The CLI's --json output is the library's snapshot, field for field. */
TEST(cli_json_matches_dump)
{
	struct secmap_snapshot *snap = dump(_metadata);
	struct json_object *root, *modules;
	size_t i;
	int status;

	ASSERT_NE(NULL, snap);
	root = run_json(SECMAP_CLI " dump --json", &status);
	ASSERT_EQ(0, status);
	ASSERT_NE(NULL, root);
	ASSERT_TRUE(json_object_object_get_ex(root, "modules", &modules));
	ASSERT_EQ(secmap_snapshot_module_count(snap), json_object_array_length(modules));
	for (i = 0; i < json_object_array_length(modules); i++) {
		struct json_object *m = json_object_array_get_idx(modules, i), *name, *secs;
		const struct secmap_module *mod;
		size_t j;

		ASSERT_TRUE(json_object_object_get_ex(m, "name", &name));
		ASSERT_TRUE(json_object_object_get_ex(m, "sections", &secs));
		mod = secmap_snapshot_find(snap, json_object_get_string(name));
		ASSERT_NE(NULL, mod);
		ASSERT_EQ(secmap_module_section_count(mod), json_object_array_length(secs));
		for (j = 0; j < json_object_array_length(secs); j++) {
			struct json_object *s = json_object_array_get_idx(secs, j), *sn, *sa;
			const struct secmap_section *sec;
			char want[32];

			ASSERT_TRUE(json_object_object_get_ex(s, "name", &sn));
			ASSERT_TRUE(json_object_object_get_ex(s, "addr", &sa));
			sec = secmap_module_find_section(mod, json_object_get_string(sn));
			ASSERT_NE(NULL, sec);
			snprintf(want, sizeof(want), "0x%" PRIx64, secmap_section_addr(sec));
			EXPECT_STREQ(want, json_object_get_string(sa));
		}
	}
	json_object_put(root);
	secmap_snapshot_free(snap);
}

TEST_HARNESS_MAIN
