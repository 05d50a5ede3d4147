// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM tests of the secmap command as a user runs it: dump enriched from
 * the real Debian .ko files (compressed where Debian compresses them),
 * monitor following loads and unloads, and the sysfs fallback agreeing
 * with netlink.
 */
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vm_util.h"

#define LATE_KO	TEST_MODULE_DIR "/secmap_test_late.ko"

struct ko_size_check {
	struct __test_metadata *meta;
	struct json_object *sections;
	const char *module;
	int compared;
};

static struct json_object *find_named(struct json_object *array, const char *name)
{
	size_t i;

	for (i = 0; array && i < json_object_array_length(array); i++) {
		struct json_object *o = json_object_array_get_idx(array, i);

		if (!strcmp(json_object_get_string(jget(o, "name")), name))
			return o;
	}
	return NULL;
}

/* Every dumped section the .ko has must report its sh_size and sh_offset. */
static bool compare_section(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr, const char *name,
			    void *arg)
{
	struct ko_size_check *c = arg;
	struct __test_metadata *_metadata = c->meta;
	struct json_object *sec = find_named(c->sections, name);

	(void)elf;
	(void)scn;
	if (!sec)
		return false;
	EXPECT_EQ((int64_t)shdr->sh_size, json_object_get_int64(jget(sec, "size")))
		TH_LOG("%s %s: size", c->module, name);
	EXPECT_EQ((int64_t)shdr->sh_offset, json_object_get_int64(jget(sec, "pgoff")))
		TH_LOG("%s %s: pgoff", c->module, name);
	EXPECT_EQ(!!(shdr->sh_flags & SHF_EXECINSTR), json_object_get_boolean(jget(sec, "exec")))
		TH_LOG("%s %s: exec", c->module, name);
	c->compared++;
	return false;
}

TEST(dump_sizes_and_build_ids_equal_the_shipped_ko)
{
	struct json_object *root, *modules;
	char name[64], ko[256];
	struct utsname uts;
	int status, checked = 0;
	FILE *list;

	ASSERT_EQ(0, uname(&uts));
	root = run_json(SECMAP_CLI " dump --json", &status);
	ASSERT_NE(NULL, root);
	EXPECT_EQ(0, status);
	EXPECT_STREQ("netlink", json_object_get_string(jget(root, "source")));
	modules = jget(root, "modules");
	list = fopen(REAL_MODULE_LIST, "r");
	ASSERT_NE(NULL, list);
	while (fscanf(list, "%63s", name) == 1) {
		struct json_object *mod = find_named(modules, name);
		struct ko_size_check c = { .meta = _metadata, .module = name };
		struct build_id want = { 0 };
		const char *path, *id;
		char hex[2 * sizeof(want.bytes) + 1] = "";
		size_t i;

		ASSERT_NE(NULL, mod) TH_LOG("%s not dumped", name);
		path = json_object_get_string(jget(mod, "path"));
		ASSERT_NE(NULL, path) TH_LOG("%s: no .ko found", name);
		/* Found through modules.dep under /lib/modules/RELEASE, as shipped. */
		EXPECT_EQ(0, strncmp(path, "/lib/modules/", 13)) TH_LOG("%s: %s", name, path);
		EXPECT_NE(NULL, strstr(path, uts.release)) TH_LOG("%s: %s", name, path);

		/* The decompressed copy in EARLY_MODULE_DIR is what was loaded. */
		snprintf(ko, sizeof(ko), EARLY_MODULE_DIR "/%s.ko", name);
		c.sections = jget(mod, "sections");
		ASSERT_EQ(0, for_each_ko_section(ko, compare_section, &c));
		EXPECT_LT(5, c.compared) TH_LOG("%s: only %d sections compared", name, c.compared);

		ASSERT_EQ(0, ko_build_id(ko, &want));
		for (i = 0; i < want.len; i++)
			sprintf(hex + 2 * i, "%02x", want.bytes[i]);
		id = json_object_get_string(jget(mod, "build_id"));
		EXPECT_STREQ(hex, id ? id : "(null)");
		checked++;
	}
	fclose(list);
	EXPECT_LE(3, checked);
	json_object_put(root);
}

TEST(dump_refuses_a_mismatching_ko)
{
	struct json_object *root;
	int status;

	/* The late test module's file is not the loaded secmap_test_sections. */
	ASSERT_EQ(0, system("mkdir -p /tmp/wrong && cp " LATE_KO
			    " /tmp/wrong/secmap_test_sections.ko"));
	root = run_json(SECMAP_CLI " dump --json --ko-path /tmp/wrong secmap_test_sections",
			&status);
	EXPECT_EQ(6, status) TH_LOG("mismatch must be exit 6");
	EXPECT_NE(NULL, jget(root, "error"));
	json_object_put(root);

	root = run_json(SECMAP_CLI " dump --json --force --ko-path /tmp/wrong secmap_test_sections "
			"2>/dev/null", &status);
	EXPECT_EQ(0, status) TH_LOG("--force uses it anyway");
	json_object_put(root);
}

TEST(monitor_follows_load_and_unload)
{
	static const char * const want[] = { "new", "live", "gone" };
	char *argv[] = { SECMAP_CLI, "monitor", "-j", "--count", "3", "--timeout-ms", "20000", NULL };
	posix_spawn_file_actions_t fa;
	char line[65536];
	int i, seen = 0, status, out[2];
	uint64_t last_seq = 0;
	bool subscribed;
	char wait_cmd[96];
	FILE *mon;
	pid_t pid;

	ASSERT_EQ(0, pipe(out));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	posix_spawn_file_actions_addclose(&fa, out[1]);
	ASSERT_EQ(0, posix_spawn(&pid, SECMAP_CLI, &fa, NULL, argv, environ));
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	mon = fdopen(out[0], "r");
	ASSERT_NE(NULL, mon);
	/*
	 * The load must come after the subscription: wait for the socket to
	 * join the group (the shell tests' helper) rather than for a time,
	 * which a loaded host (TCG) can stretch past any guess.
	 */
	snprintf(wait_cmd, sizeof(wait_cmd), ". /lib/secmap/vm_util.sh && wait_subscribed %d 100",
		 (int)pid);
	subscribed = system(wait_cmd) == 0;
	ASSERT_EQ(0, waitpid(pid, &status, WNOHANG)) TH_LOG("monitor exited, status %#x", status);
	ASSERT_TRUE(subscribed) TH_LOG("monitor not subscribed after 10 s");
	ASSERT_EQ(0, load_module(LATE_KO));
	ASSERT_EQ(0, unload_module("secmap_test_late"));
	for (i = 0; i < 3 && fgets(line, sizeof(line), mon); i++) {
		struct json_object *ev = json_tokener_parse(line);
		uint64_t seq = json_object_get_uint64(jget(ev, "seq"));

		ASSERT_NE(NULL, ev) TH_LOG("not JSON: %.200s", line);
		EXPECT_STREQ(want[i], json_object_get_string(jget(ev, "event")));
		EXPECT_STREQ("secmap_test_late",
			     json_object_get_string(jget(jget(ev, "module"), "name")));
		EXPECT_NE(0, json_object_get_uint64(jget(ev, "time_local_ns")));
		EXPECT_NE(0, json_object_get_uint64(jget(ev, "time_mono_ns")));
		if (last_seq)
			EXPECT_EQ(last_seq + 1, seq);
		last_seq = seq;
		json_object_put(ev);
		seen++;
	}
	fclose(mon);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("status %#x", status);
	EXPECT_EQ(3, seen);
}

/* Same modules, addresses and init flags from sysfs as from netlink (+.data..percpu). */
TEST(sysfs_source_agrees_with_netlink)
{
	struct json_object *nl, *fs, *nl_mods, *fs_mods;
	size_t i, j, sections = 0;
	int status;

	nl = run_json(SECMAP_CLI " dump --json --no-ko --source netlink", &status);
	ASSERT_EQ(0, status);
	fs = run_json(SECMAP_CLI " dump --json --no-ko --source sysfs", &status);
	ASSERT_EQ(0, status);
	EXPECT_STREQ("sysfs", json_object_get_string(jget(fs, "source")));
	nl_mods = jget(nl, "modules");
	fs_mods = jget(fs, "modules");
	ASSERT_EQ(json_object_array_length(nl_mods), json_object_array_length(fs_mods));
	for (i = 0; i < json_object_array_length(fs_mods); i++) {
		struct json_object *fm = json_object_array_get_idx(fs_mods, i);
		const char *name = json_object_get_string(jget(fm, "name"));
		struct json_object *nm = find_named(nl_mods, name);
		struct json_object *fsecs = jget(fm, "sections"), *nsecs;

		ASSERT_NE(NULL, nm) TH_LOG("%s only in sysfs", name);
		nsecs = jget(nm, "sections");
		EXPECT_EQ(json_object_array_length(fsecs) + !!find_named(nsecs, ".data..percpu"),
			  json_object_array_length(nsecs)) TH_LOG("%s", name);
		EXPECT_STREQ(json_object_get_string(jget(nm, "build_id")),
			     json_object_get_string(jget(fm, "build_id"))) TH_LOG("%s", name);
		for (j = 0; j < json_object_array_length(fsecs); j++) {
			struct json_object *fsec = json_object_array_get_idx(fsecs, j);
			const char *sname = json_object_get_string(jget(fsec, "name"));
			struct json_object *nsec = find_named(nsecs, sname);

			ASSERT_NE(NULL, nsec) TH_LOG("%s %s", name, sname);
			EXPECT_STREQ(json_object_get_string(jget(nsec, "addr")),
				     json_object_get_string(jget(fsec, "addr")))
				TH_LOG("%s %s", name, sname);
			/* The kernel's own view of what is init and freed, through secmap.ko. */
			EXPECT_EQ(json_object_get_boolean(jget(nsec, "init")),
				  json_object_get_boolean(jget(fsec, "init")))
				TH_LOG("%s %s: init", name, sname);
			EXPECT_EQ(json_object_get_boolean(jget(nsec, "freed")),
				  json_object_get_boolean(jget(fsec, "freed")))
				TH_LOG("%s %s: freed", name, sname);
			sections++;
		}
	}
	EXPECT_LT(100, sections);
	json_object_put(nl);
	json_object_put(fs);
}

TEST_HARNESS_MAIN
