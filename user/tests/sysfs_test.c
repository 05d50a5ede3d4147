// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for secmap_snapshot_from_sysfs() and the uevent watch that
 * reads sysfs on each module uevent: a fake /proc/modules and /sys/module
 * tree in a temporary directory, read through @root.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "kselftest_harness.h"

#include <linux/perf_event.h>

#include "internal.h"

static const uint8_t build_id[20] = {
	0x3f, 0x2a, 0x9c, 0x01, 0x00, 0xff, 0x10, 0x20, 0x30, 0x40,
	0x50, 0x60, 0x70, 0x80, 0x90, 0xa0, 0xb0, 0xc0, 0xd0, 0xe1,
};

/* mkdir -p of @rel's parent under @root, then write @len bytes of @data to it. */
static int put(const char *root, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX], *p;
	int fd;
	ssize_t n;

	if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
		return -1;
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	n = write(fd, data, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static int puts_(const char *root, const char *rel, const char *text)
{
	return put(root, rel, text, strlen(text));
}

static int mkdirs(const char *root, const char *rel)
{
	char path[PATH_MAX];

	/* put() creates the parents of a dummy file; remove the file again. */
	snprintf(path, sizeof(path), "%s/.keep", rel);
	if (put(root, path, "", 0))
		return -1;
	snprintf(path, sizeof(path), "%s/%s/.keep", root, rel);
	return unlink(path);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* One ELF note as the kernel's notes attribute holds it; returns its length. */
static size_t make_note(uint8_t *buf, const char *name, uint32_t type,
			const uint8_t *desc, uint32_t descsz)
{
	uint32_t namesz = strlen(name) + 1;
	size_t off = 12;

	put_u32(buf, namesz);
	put_u32(buf + 4, descsz);
	put_u32(buf + 8, type);
	memset(buf + off, 0, (namesz + 3) & ~3U);
	memcpy(buf + off, name, namesz);
	off += (namesz + 3) & ~3U;
	memset(buf + off, 0, (descsz + 3) & ~3U);
	memcpy(buf + off, desc, descsz);
	return off + ((descsz + 3) & ~3U);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

FIXTURE(sysfs) {
	char root[64];
	struct secmap_snapshot *snap;
};

/*
 * Three modules, newest first as in /proc/modules:
 *   dummy    Live, tainted OE, a build-id, five sections (dotfiles and not)
 *   coming   Loading, no notes, no taint file
 *   going    Unloading, "X" taint
 */
FIXTURE_SETUP(sysfs)
{
	uint8_t note[128];
	size_t len;

	strcpy(self->root, "/tmp/secmap-sysfs-test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	self->snap = NULL;

	ASSERT_EQ(0, puts_(self->root, "proc/modules",
			   "dummy 16384 0 - Live 0xffffffffc0564000 (OE)\n"
			   "coming 8192 1 - Loading 0xffffffffc0a01000\n"
			   "going 8192 0 dummy, Unloading 0xffffffffc0b00000 (X)\n"));

	ASSERT_EQ(0, puts_(self->root, "sys/module/dummy/sections/.text",
			   "0xffffffffc0564000\n"));
	ASSERT_EQ(0, puts_(self->root, "sys/module/dummy/sections/.data",
			   "0xffffffffc0566000\n"));
	ASSERT_EQ(0, puts_(self->root, "sys/module/dummy/sections/.init.text",
			   "0xffffffffc0568000\n"));
	ASSERT_EQ(0, puts_(self->root, "sys/module/dummy/sections/.gnu.linkonce.this_module",
			   "0xffffffffc0566100\n"));
	ASSERT_EQ(0, puts_(self->root, "sys/module/dummy/sections/__ksymtab",
			   "0xffffffffc0565000\n"));
	/* Another note first, then the build-id, as a module's notes may hold. */
	len = make_note(note, "Linux", 0x100, (const uint8_t *)"6.1", 4);
	len += make_note(note + len, "GNU", 3, build_id, sizeof(build_id));
	ASSERT_EQ(0, put(self->root, "sys/module/dummy/notes/.note.gnu.build-id", note, len));
	ASSERT_EQ(0, puts_(self->root, "sys/module/dummy/taint", "OE\n"));

	ASSERT_EQ(0, puts_(self->root, "sys/module/coming/sections/.init.text",
			   "0xffffffffc0a01000\n"));

	ASSERT_EQ(0, puts_(self->root, "sys/module/going/sections/.text",
			   "0xffffffffc0b00000\n"));
	ASSERT_EQ(0, puts_(self->root, "sys/module/going/taint", "X\n"));
}

FIXTURE_TEARDOWN(sysfs)
{
	secmap_snapshot_free(self->snap);
	nftw(self->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TEST_F(sysfs, modules_in_proc_order)
{
	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	ASSERT_EQ(3U, secmap_snapshot_module_count(self->snap));
	EXPECT_STREQ("dummy", secmap_module_name(secmap_snapshot_module(self->snap, 0)));
	EXPECT_STREQ("coming", secmap_module_name(secmap_snapshot_module(self->snap, 1)));
	EXPECT_STREQ("going", secmap_module_name(secmap_snapshot_module(self->snap, 2)));
}

TEST_F(sysfs, states)
{
	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	EXPECT_EQ(SECMAP_MODULE_STATE_LIVE,
		  secmap_module_state(secmap_snapshot_find(self->snap, "dummy")));
	EXPECT_EQ(SECMAP_MODULE_STATE_COMING,
		  secmap_module_state(secmap_snapshot_find(self->snap, "coming")));
	EXPECT_EQ(SECMAP_MODULE_STATE_GOING,
		  secmap_module_state(secmap_snapshot_find(self->snap, "going")));
}

TEST_F(sysfs, section_addresses)
{
	const struct secmap_module *m;
	const struct secmap_section *s;
	size_t i;

	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	m = secmap_snapshot_find(self->snap, "dummy");
	ASSERT_NE(NULL, m);
	ASSERT_EQ(5U, secmap_module_section_count(m));
	s = secmap_module_find_section(m, ".text");
	ASSERT_NE(NULL, s);
	EXPECT_EQ(0xffffffffc0564000ULL, secmap_section_addr(s));
	EXPECT_EQ(0U, secmap_section_flags(s));
	EXPECT_EQ(-1, secmap_section_region(s));
	s = secmap_module_find_section(m, ".gnu.linkonce.this_module");
	ASSERT_NE(NULL, s);
	EXPECT_EQ(0xffffffffc0566100ULL, secmap_section_addr(s));
	s = secmap_module_find_section(m, "__ksymtab");
	ASSERT_NE(NULL, s);
	EXPECT_EQ(0xffffffffc0565000ULL, secmap_section_addr(s));
	/* Sorted by address, whatever order readdir() gave. */
	for (i = 1; i < secmap_module_section_count(m); i++)
		EXPECT_LT(secmap_section_addr(secmap_module_section(m, i - 1)),
			  secmap_section_addr(secmap_module_section(m, i)));
	EXPECT_EQ(0U, secmap_module_region_count(m));
	/* A live module's init part is freed: sysfs shows where it was. */
	s = secmap_module_find_section(m, ".init.text");
	ASSERT_NE(NULL, s);
	EXPECT_EQ(SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED, secmap_section_flags(s));
	m = secmap_snapshot_find(self->snap, "coming");
	ASSERT_NE(NULL, m);
	ASSERT_EQ(1U, secmap_module_section_count(m));
	EXPECT_STREQ(".init.text", secmap_section_name(secmap_module_section(m, 0)));
	EXPECT_EQ(0xffffffffc0a01000ULL, secmap_section_addr(secmap_module_section(m, 0)));
	/* A loading one's is still there. */
	EXPECT_EQ(0U, secmap_section_flags(secmap_module_section(m, 0)));
}

TEST_F(sysfs, build_id)
{
	const uint8_t *id = NULL;

	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	ASSERT_EQ(sizeof(build_id),
		  secmap_module_build_id(secmap_snapshot_find(self->snap, "dummy"), &id));
	ASSERT_NE(NULL, id);
	EXPECT_EQ(0, memcmp(build_id, id, sizeof(build_id)));
	EXPECT_EQ(0U, secmap_module_build_id(secmap_snapshot_find(self->snap, "coming"), &id));
	EXPECT_EQ(NULL, id);
}

TEST_F(sysfs, taint)
{
	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	EXPECT_EQ((1ULL << 12) | (1ULL << 13),
		  secmap_module_taint(secmap_snapshot_find(self->snap, "dummy")));
	EXPECT_EQ(0U, secmap_module_taint(secmap_snapshot_find(self->snap, "coming")));
	EXPECT_EQ(1ULL << 16, secmap_module_taint(secmap_snapshot_find(self->snap, "going")));
}

TEST_F(sysfs, taint_letters)
{
	ASSERT_EQ(0, puts_(self->root, "sys/module/dummy/taint", "PFOEKXCN?\n"));
	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	/* '?' is no taint letter: ignored. */
	EXPECT_EQ((1ULL << 0) | (1ULL << 1) | (1ULL << 12) | (1ULL << 13) | (1ULL << 15) |
		  (1ULL << 16) | (1ULL << 10) | (1ULL << 18),
		  secmap_module_taint(secmap_snapshot_find(self->snap, "dummy")));
}

TEST_F(sysfs, hidden_addresses_eperm)
{
	ASSERT_EQ(0, puts_(self->root, "sys/module/going/sections/.text",
			   "0x0000000000000000\n"));
	errno = 0;
	EXPECT_EQ(-EPERM, secmap_snapshot_from_sysfs(self->root, &self->snap));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(NULL, self->snap);
}

TEST_F(sysfs, some_zero_is_fine)
{
	ASSERT_EQ(0, puts_(self->root, "sys/module/dummy/sections/.init.text", "0x0\n"));
	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	EXPECT_EQ(0U, secmap_section_addr(secmap_module_find_section(
			secmap_snapshot_find(self->snap, "dummy"), ".init.text")));
}

/* Unloaded between reading /proc/modules and its directory: skipped. */
TEST_F(sysfs, vanished_module_skipped)
{
	ASSERT_EQ(0, puts_(self->root, "proc/modules",
			   "ghost 4096 0 - Live 0xffffffffc0c00000\n"
			   "dummy 16384 0 - Live 0xffffffffc0564000 (OE)\n"));
	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	ASSERT_EQ(1U, secmap_snapshot_module_count(self->snap));
	EXPECT_STREQ("dummy", secmap_module_name(secmap_snapshot_module(self->snap, 0)));
}

/*
 * Being unloaded: its section files are removed before its directory
 * (mod_sysfs_fini()), so one listed by readdir may be gone when opened
 * (here a dangling link stands for it). Skipped, not half-read, not an error.
 */
TEST_F(sysfs, module_losing_sections_skipped)
{
	char path[PATH_MAX];

	ASSERT_EQ(0, puts_(self->root, "proc/modules",
			   "leaving 4096 0 - Unloading 0xffffffffc0c00000\n"
			   "dummy 16384 0 - Live 0xffffffffc0564000 (OE)\n"));
	ASSERT_EQ(0, puts_(self->root, "sys/module/leaving/sections/.data",
			   "0xffffffffc0c02000\n"));
	snprintf(path, sizeof(path), "%s/sys/module/leaving/sections/.text", self->root);
	ASSERT_EQ(0, symlink("removed", path));
	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	ASSERT_EQ(1U, secmap_snapshot_module_count(self->snap));
	EXPECT_STREQ("dummy", secmap_module_name(secmap_snapshot_module(self->snap, 0)));
}

/* Unloading and its sections/ already removed: skipped too. */
TEST_F(sysfs, going_module_without_sections_dir_skipped)
{
	ASSERT_EQ(0, puts_(self->root, "proc/modules",
			   "leaving 4096 0 - Unloading 0xffffffffc0c00000\n"
			   "dummy 16384 0 - Live 0xffffffffc0564000 (OE)\n"));
	ASSERT_EQ(0, mkdirs(self->root, "sys/module/leaving"));
	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	ASSERT_EQ(1U, secmap_snapshot_module_count(self->snap));
	EXPECT_STREQ("dummy", secmap_module_name(secmap_snapshot_module(self->snap, 0)));
}

/* /sys/module/NAME there but no sections/ (no CONFIG_KALLSYMS): kept, no sections. */
TEST_F(sysfs, no_sections_dir_kept)
{
	ASSERT_EQ(0, puts_(self->root, "proc/modules",
			   "bare 4096 0 - Live 0xffffffffc0c00000\n"));
	ASSERT_EQ(0, mkdirs(self->root, "sys/module/bare"));
	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	ASSERT_EQ(1U, secmap_snapshot_module_count(self->snap));
	EXPECT_EQ(0U, secmap_module_section_count(secmap_snapshot_module(self->snap, 0)));
}

TEST_F(sysfs, empty_proc_modules)
{
	ASSERT_EQ(0, puts_(self->root, "proc/modules", ""));
	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	EXPECT_EQ(0U, secmap_snapshot_module_count(self->snap));
}

TEST_F(sysfs, missing_proc_modules)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/proc/modules", self->root);
	ASSERT_EQ(0, unlink(path));
	errno = 0;
	EXPECT_EQ(-ENOENT, secmap_snapshot_from_sysfs(self->root, &self->snap));
	EXPECT_EQ(ENOENT, errno);
}

/*
 * A FIFO where a file should be (a hostile or broken root) is refused with
 * EINVAL, not waited on forever: /proc/modules, a section, a note.
 */
TEST_F(sysfs, fifo_refused_not_waited_on)
{
	static const char *const files[] = {
		"sys/module/dummy/sections/.text", "sys/module/dummy/notes/.note.gnu.build-id",
		"proc/modules",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", self->root, files[i]);
		ASSERT_EQ(0, unlink(path));
		ASSERT_EQ(0, mkfifo(path, 0600));
		alarm(10);	/* a hang fails the test */
		EXPECT_EQ(-EINVAL, secmap_snapshot_from_sysfs(self->root, &self->snap))
			TH_LOG("%s", files[i]);
		alarm(0);
		secmap_snapshot_free(self->snap);
		self->snap = NULL;
		ASSERT_EQ(0, unlink(path));
		ASSERT_EQ(0, puts_(self->root, files[i], i == 2 ?
				   "dummy 16384 0 - Live 0xffffffffc0564000 (OE)\n" :
				   "0xffffffffc0564000\n"));
	}
}

TEST_F(sysfs, malformed_address_eproto)
{
	static const char *const bad[] = {
		"ffffffffc0564000\n",		/* no 0x */
		"0x\n",				/* no digits */
		"0xffffffffc056400g\n",		/* not hex */
		"0x1ffffffffc0564000\n",	/* 17 digits */
		"0xffffffffc0564000 junk\n",
		"",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(0, puts_(self->root, "sys/module/coming/sections/.init.text", bad[i]));
		errno = 0;
		EXPECT_EQ(-EPROTO, secmap_snapshot_from_sysfs(self->root, &self->snap)) {
			TH_LOG("address text '%s'", bad[i]);
		}
		EXPECT_EQ(EPROTO, errno);
		EXPECT_EQ(NULL, self->snap);
	}
}

TEST_F(sysfs, malformed_proc_modules_eproto)
{
	ASSERT_EQ(0, puts_(self->root, "proc/modules", "dummy 16384 0\n"));
	EXPECT_EQ(-EPROTO, secmap_snapshot_from_sysfs(self->root, &self->snap));
	/* A name that would escape sys/module/. */
	ASSERT_EQ(0, puts_(self->root, "proc/modules", ".. 16384 0 - Live 0x0\n"));
	EXPECT_EQ(-EPROTO, secmap_snapshot_from_sysfs(self->root, &self->snap));
}

TEST_F(sysfs, truncated_note_eproto)
{
	uint8_t note[64];
	size_t len = make_note(note, "GNU", 3, build_id, sizeof(build_id));

	ASSERT_EQ(0, put(self->root, "sys/module/dummy/notes/.note.gnu.build-id", note,
			 len - 4));
	EXPECT_EQ(-EPROTO, secmap_snapshot_from_sysfs(self->root, &self->snap));
}

/* As root, the check runs in a child that dropped to "nobody". */
TEST_F(sysfs, unreadable_sections_eacces)
{
	char path[PATH_MAX];
	int status, ret;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/sys/module/dummy/sections", self->root);
	ASSERT_EQ(0, chmod(path, 0));
	ASSERT_EQ(0, chmod(self->root, 0755));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct secmap_snapshot *snap = NULL;

		if (geteuid() == 0 && (setgroups(0, NULL) || setgid(65534) || setuid(65534)))
			_exit(100);
		ret = secmap_snapshot_from_sysfs(self->root, &snap);
		_exit(ret == -EACCES && errno == EACCES && !snap ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	chmod(path, 0755);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 100)
		SKIP(return, "cannot drop privileges");
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST(sysfs_null_args)
{
	EXPECT_EQ(-EINVAL, secmap_snapshot_from_sysfs(NULL, NULL));
}

/* A uevent as the kernel formats one: "ACTION@DEVPATH", then KEY=VALUE, NUL after each. */
static size_t uevent(char *buf, const char *action, const char *devpath, const char *subsystem)
{
	return (size_t)sprintf(buf, "%s@%s%cACTION=%s%cDEVPATH=%s%cSUBSYSTEM=%s%cSEQNUM=77%c",
			       action, devpath, 0, action, 0, devpath, 0, subsystem, 0, 0);
}

TEST(uevent_parse_module_add_remove)
{
	char buf[512], name[LIBSECMAP_UEVENT_NAME_MAX];
	bool add = false;
	size_t len;

	len = uevent(buf, "add", "/module/dummy", "module");
	ASSERT_EQ(1, libsecmap_uevent_parse(buf, len, &add, name));
	EXPECT_TRUE(add);
	EXPECT_STREQ("dummy", name);
	len = uevent(buf, "remove", "/module/snd_hda", "module");
	ASSERT_EQ(1, libsecmap_uevent_parse(buf, len, &add, name));
	EXPECT_FALSE(add);
	EXPECT_STREQ("snd_hda", name);
}

TEST(uevent_parse_others_and_malformed)
{
	char buf[512], name[LIBSECMAP_UEVENT_NAME_MAX], longname[80];
	bool add;
	size_t len;

	/* Other devices, other actions: no event, not an error. */
	len = uevent(buf, "add", "/devices/virtual/net/lo", "net");
	EXPECT_EQ(0, libsecmap_uevent_parse(buf, len, &add, name));
	len = uevent(buf, "change", "/module/dummy", "module");
	EXPECT_EQ(0, libsecmap_uevent_parse(buf, len, &add, name));
	/* Cut short (no final NUL), empty, missing keys, no '@'. */
	len = uevent(buf, "add", "/module/dummy", "module");
	EXPECT_EQ(-EPROTO, libsecmap_uevent_parse(buf, len - 1, &add, name));
	EXPECT_EQ(-EPROTO, libsecmap_uevent_parse(buf, 0, &add, name));
	EXPECT_EQ(-EPROTO, libsecmap_uevent_parse("add@/module/x\0ACTION=add\0", 25, &add, name));
	EXPECT_EQ(-EPROTO, libsecmap_uevent_parse("libudev\0", 8, &add, name));
	/* A name that is not one path component, or too long for a module's. */
	len = uevent(buf, "add", "/module/..", "module");
	EXPECT_EQ(-EPROTO, libsecmap_uevent_parse(buf, len, &add, name));
	len = uevent(buf, "add", "/module/a/../../etc", "module");
	EXPECT_EQ(-EPROTO, libsecmap_uevent_parse(buf, len, &add, name));
	len = uevent(buf, "add", "/module/", "module");
	EXPECT_EQ(-EPROTO, libsecmap_uevent_parse(buf, len, &add, name));
	len = uevent(buf, "add", "/devices/dummy", "module");
	EXPECT_EQ(-EPROTO, libsecmap_uevent_parse(buf, len, &add, name));
	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "/module/", 8);
	longname[8 + LIBSECMAP_UEVENT_NAME_MAX] = '\0';	/* 56 characters */
	len = uevent(buf, "add", longname, "module");
	EXPECT_EQ(-EPROTO, libsecmap_uevent_parse(buf, len, &add, name));
	longname[8 + LIBSECMAP_UEVENT_NAME_MAX - 1] = '\0';	/* 55: the longest */
	len = uevent(buf, "add", longname, "module");
	EXPECT_EQ(1, libsecmap_uevent_parse(buf, len, &add, name));
}

/* module_load's format file as 6.1 to 7.x write it. */
static const char load_format[] =
	"name: module_load\n"
	"ID: 512\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int taints;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s %s\", __get_str(name), __print_flags(REC->taints, \"\", ...)\n";

TEST(load_trace_format)
{
	char text[sizeof(load_format) + 32];
	uint32_t off = 0;
	uint64_t id = 0;

	ASSERT_EQ(0, libsecmap_load_trace_parse_format(load_format, &id, &off));
	EXPECT_EQ(512U, id);
	EXPECT_EQ(12U, off);
	/* No ID, no name, a name that is not a __data_loc of 4 bytes: not this event. */
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_format(strstr(load_format, "format:"), &id,
							     &off));
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_format("name: module_load\nID: 7\n", &id,
							     &off));
	strcpy(text, load_format);
	memcpy(strstr(text, "size:4;\tsigned:0;\n\nprint") - 0, "size:8", 6);
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_format(text, &id, &off));
	strcpy(text, load_format);
	memcpy(strstr(text, "__data_loc"), "__rel_loc ", 10);
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_format(text, &id, &off));
	strcpy(text, load_format);
	memcpy(strstr(text, "ID: 512"), "ID: x12", 7);
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_format(text, &id, &off));
}

/* A PERF_RECORD_SAMPLE of TID, TIME and RAW: module_load's raw data holds @name at @loc. */
static size_t load_sample(uint8_t *rec, uint64_t time, const char *name, uint32_t loc)
{
	uint32_t n = (uint32_t)strlen(name) + 1, raw_size = 16 + n, pad = (8 - (4 + raw_size) % 8) % 8;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	uint8_t *raw = rec + sizeof(h) + 16 + 4;
	uint32_t tid[2] = { 700, 701 };

	raw_size += pad;
	h.size = (uint16_t)(sizeof(h) + 16 + 4 + raw_size);
	memset(rec, 0, h.size);
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), tid, 8);
	memcpy(rec + sizeof(h) + 8, &time, 8);
	memcpy(rec + sizeof(h) + 16, &raw_size, 4);
	if (!loc)
		loc = 16 | n << 16;
	memcpy(raw + 12, &loc, 4);
	memcpy(raw + 16, name, n);
	return h.size;
}

TEST(load_trace_sample)
{
	struct libsecmap_load_sample s;
	char longname[80];
	uint8_t rec[256];
	size_t len;

	len = load_sample(rec, 123456789, "secmap_test_burn", 0);
	ASSERT_EQ(0, libsecmap_load_trace_parse_sample(rec, len, 12, &s));
	EXPECT_EQ(123456789U, s.time);
	EXPECT_EQ(701U, s.tid);
	EXPECT_STREQ("secmap_test_burn", s.name);
	/* A syscall's: TID and TIME only, no name. */
	((struct perf_event_header *)rec)->size = 24;
	ASSERT_EQ(0, libsecmap_load_trace_parse_sample(rec, 24, 12, &s));
	EXPECT_STREQ("", s.name);
	EXPECT_EQ(123456789U, s.time);
	/* Cut short, or the size in the header not the record's. */
	len = load_sample(rec, 123456789, "secmap_test_burn", 0);
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_sample(rec, 16, 12, &s));
	EXPECT_EQ(-EAGAIN, libsecmap_load_trace_parse_sample(rec, len - 8, 12, &s));
	((struct perf_event_header *)rec)->size = 26;
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_sample(rec, 26, 12, &s));
	/* The name's place past the raw data, or its __data_loc past it. */
	len = load_sample(rec, 1, "dummy", 0);
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_sample(rec, len, 4000, &s));
	len = load_sample(rec, 1, "dummy", 200 | 6 << 16);
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_sample(rec, len, 12, &s));
	len = load_sample(rec, 1, "dummy", 16 | 0 << 16);
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_sample(rec, len, 12, &s));
	/* No NUL within the string's length, or an empty name. */
	len = load_sample(rec, 1, "dummy", 16 | 3 << 16);
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_sample(rec, len, 12, &s));
	len = load_sample(rec, 1, "", 0);
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_sample(rec, len, 12, &s));
	/* Longer than a module's name may be. */
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	len = load_sample(rec, 1, longname, 0);
	EXPECT_EQ(-EPROTO, libsecmap_load_trace_parse_sample(rec, len, 12, &s));
	/* Another record type (PERF_RECORD_LOST) is no load. */
	len = load_sample(rec, 1, "dummy", 0);
	((struct perf_event_header *)rec)->type = PERF_RECORD_LOST;
	EXPECT_EQ(-EAGAIN, libsecmap_load_trace_parse_sample(rec, len, 12, &s));
}

static void note(struct libsecmap_load_trace *t, const char *name, uint32_t tid, uint64_t time)
{
	struct libsecmap_load_sample s = { .tid = tid, .time = time };

	snprintf(s.name, sizeof(s.name), "%s", name);
	libsecmap_load_trace_note(t, &s);
}

/* Each ADD takes its module's latest load before it; earlier ones (failed inits) go with it. */
TEST(load_trace_take)
{
	struct libsecmap_load_trace t;
	uint64_t start, loaded;
	int i;

	memset(&t, 0, sizeof(t));
	EXPECT_EQ(-ENOENT, libsecmap_load_trace_take(&t, "a", 1000, &start, &loaded));
	note(&t, "a", 1, 100);
	note(&t, "b", 2, 150);
	note(&t, "a", 1, 200);
	note(&t, "a", 1, 300);
	ASSERT_EQ(0, libsecmap_load_trace_take(&t, "a", 250, &start, &loaded));
	EXPECT_EQ(200U, loaded);
	EXPECT_EQ(200U, start);	/* no syscall seen: from module_load */
	EXPECT_EQ(-ENOENT, libsecmap_load_trace_take(&t, "a", 250, &start, &loaded));
	EXPECT_EQ(0U, loaded);
	ASSERT_EQ(0, libsecmap_load_trace_take(&t, "a", 400, &start, &loaded));
	EXPECT_EQ(300U, loaded);
	ASSERT_EQ(0, libsecmap_load_trace_take(&t, "b", 400, &start, &loaded));
	EXPECT_EQ(150U, loaded);
	/* A full table forgets its oldest. */
	for (i = 1; i <= LIBSECMAP_LOAD_SEEN + 1; i++)
		note(&t, i == 1 ? "old" : "x", 3, (uint64_t)i);
	EXPECT_EQ(-ENOENT, libsecmap_load_trace_take(&t, "old", 1000, &start, &loaded));
	ASSERT_EQ(0, libsecmap_load_trace_take(&t, "x", 1000, &start, &loaded));
	EXPECT_EQ((uint64_t)LIBSECMAP_LOAD_SEEN + 1, loaded);
	libsecmap_load_trace_close(&t);
}

/* A load began at its task's latest syscall before module_load, which no later load takes. */
TEST(load_trace_syscall_start)
{
	struct libsecmap_load_trace t;
	uint64_t start, loaded;

	memset(&t, 0, sizeof(t));
	note(&t, "", 7, 1000);		/* task 7's finit_module() */
	note(&t, "", 8, 1100);		/* task 8's, loading another at once */
	note(&t, "", 7, 5000);		/* task 7's next, after this load */
	note(&t, "burn", 7, 1500);
	note(&t, "late", 8, 1600);
	note(&t, "again", 7, 5500);
	note(&t, "lost", 7, 9000);	/* its syscall lost, 5000 taken: from module_load */
	ASSERT_EQ(0, libsecmap_load_trace_take(&t, "burn", 2000, &start, &loaded));
	EXPECT_EQ(1000U, start);
	EXPECT_EQ(1500U, loaded);
	ASSERT_EQ(0, libsecmap_load_trace_take(&t, "late", 2000, &start, &loaded));
	EXPECT_EQ(1100U, start);
	ASSERT_EQ(0, libsecmap_load_trace_take(&t, "again", 6000, &start, &loaded));
	EXPECT_EQ(5000U, start);
	ASSERT_EQ(0, libsecmap_load_trace_take(&t, "lost", 9500, &start, &loaded));
	EXPECT_EQ(9000U, start);
	libsecmap_load_trace_close(&t);
}

/* Where a uevent of a live module is taken, its init sections are gone already. */
TEST_F(sysfs, uevent_snapshot_and_events)
{
	const struct secmap_module *m;
	const struct secmap_section *s;
	struct secmap_uevent_watch *w;
	struct secmap_event *ev = NULL;
	const uint8_t *id;
	char buf[512];
	size_t len;

	/* The full symbol table lives in the init part too (layout_symtab()). */
	ASSERT_EQ(0, puts_(self->root, "sys/module/dummy/sections/.symtab", "0xffffffffc0568100\n"));
	ASSERT_EQ(0, secmap_uevent_watch_open(self->root, &w));
	/* A fake sysfs has no tracepoint: loads are known from their ADD. */
	EXPECT_GT(0, secmap_uevent_watch_load_times(w));
	ASSERT_EQ(0, secmap_uevent_watch_snapshot(w, &self->snap));
	EXPECT_NE(0U, secmap_snapshot_time_mono_ns(self->snap));
	EXPECT_NE(0U, secmap_snapshot_time_local_ns(self->snap));
	m = secmap_snapshot_find(self->snap, "dummy");
	ASSERT_NE(NULL, m);
	s = secmap_module_find_section(m, ".init.text");
	ASSERT_NE(NULL, s);
	EXPECT_EQ(SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED, secmap_section_flags(s));
	EXPECT_EQ(0U, secmap_section_flags(secmap_module_find_section(m, ".text")));
	EXPECT_EQ(0U, secmap_section_flags(secmap_module_find_section(m, "__ksymtab")));
	EXPECT_EQ(SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED,
		  secmap_section_flags(secmap_module_find_section(m, ".symtab")));
	/* Still in its init (Loading): its init sections are there. */
	m = secmap_snapshot_find(self->snap, "coming");
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0U, secmap_section_flags(secmap_module_find_section(m, ".init.text")));

	/* An add: read from sysfs then, init sections freed, SEQNUM its seq. */
	len = uevent(buf, "add", "/module/dummy", "module");
	ASSERT_EQ(0, libsecmap_uevent_watch_take(w, buf, len, &ev));
	EXPECT_EQ((uint32_t)SECMAP_CMD_MODULE_NEW_NTF, secmap_event_type(ev));
	EXPECT_EQ(77U, secmap_event_seq(ev));
	EXPECT_NE(0U, secmap_event_time_mono_ns(ev));
	m = secmap_event_module(ev);
	EXPECT_EQ(6U, secmap_module_section_count(m));
	EXPECT_EQ(SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED,
		  secmap_section_flags(secmap_module_find_section(m, ".init.text")));
	EXPECT_EQ(0xffffffffc0564000ULL,
		  secmap_section_addr(secmap_module_find_section(m, ".text")));
	secmap_event_free(ev);
	ev = NULL;
	/* Its directory gone: a remove names the build-id last seen, from memory. */
	nftw(self->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	len = uevent(buf, "remove", "/module/dummy", "module");
	ASSERT_EQ(0, libsecmap_uevent_watch_take(w, buf, len, &ev));
	EXPECT_EQ((uint32_t)SECMAP_CMD_MODULE_GONE_NTF, secmap_event_type(ev));
	EXPECT_STREQ("dummy", secmap_module_name(secmap_event_module(ev)));
	ASSERT_EQ(sizeof(build_id), secmap_module_build_id(secmap_event_module(ev), &id));
	EXPECT_EQ(0, memcmp(id, build_id, sizeof(build_id)));
	secmap_event_free(ev);
	ev = NULL;
	/* Added, and gone before it was read: no event, counted. */
	EXPECT_EQ(0U, secmap_uevent_watch_missed(w));
	len = uevent(buf, "add", "/module/dummy", "module");
	EXPECT_EQ(-EAGAIN, libsecmap_uevent_watch_take(w, buf, len, &ev));
	EXPECT_EQ(NULL, ev);
	EXPECT_EQ(1U, secmap_uevent_watch_missed(w));
	/* Another device's. */
	len = uevent(buf, "add", "/devices/virtual/net/lo", "net");
	EXPECT_EQ(-EAGAIN, libsecmap_uevent_watch_take(w, buf, len, &ev));
	secmap_uevent_watch_close(w);
}

/* A process that sends "uevents" of its own (not port 0) is not listened to. */
TEST(uevent_watch_ignores_user_senders)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK }, to = { .nl_family = AF_NETLINK };
	struct secmap_uevent_watch *w;
	struct secmap_event *ev = NULL;
	socklen_t alen = sizeof(to);
	char buf[512];
	size_t len;
	int fd;

	ASSERT_EQ(0, secmap_uevent_watch_open("/nonexistent", &w));
	ASSERT_EQ(0, getsockname(secmap_uevent_watch_fd(w), (struct sockaddr *)&to, &alen));
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&me, sizeof(me)));
	to.nl_groups = 0;
	len = uevent(buf, "remove", "/module/dummy", "module");
	ASSERT_EQ((ssize_t)len, sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(-EAGAIN, secmap_uevent_watch_next(w, &ev));
	EXPECT_EQ(NULL, ev);
	close(fd);
	secmap_uevent_watch_close(w);
}

/* perf's clock, read twice: both times perf's, later the second. */
TEST(perf_clock_reads)
{
	struct libsecmap_perf_clock c;
	uint64_t l1, m1, l2, m2;
	int err;

	err = libsecmap_perf_clock_open(&c);
	if (err == -EACCES || err == -EPERM || err == -ENOSYS || err == -ENOENT)
		SKIP(return, "no perf events here (%s): the uevent backend stamps with "
		     "CLOCK_MONOTONIC then", strerror(-err));
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, libsecmap_perf_clock_now(&c, &l1, &m1));
	ASSERT_EQ(0, libsecmap_perf_clock_now(&c, &l2, &m2));
	EXPECT_NE(0U, l1);
	EXPECT_LT(l1, l2);
	EXPECT_LT(m1, m2);
	libsecmap_perf_clock_close(&c);
	/* Closed: no stamp, CLOCK_MONOTONIC still given. */
	EXPECT_EQ(-ENODEV, libsecmap_perf_clock_now(&c, &l1, &m1));
	EXPECT_EQ(0U, l1);
	EXPECT_LT(m2, m1);
}

TEST_HARNESS_MAIN
