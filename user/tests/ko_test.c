// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for module files: secmap_ko_open() and friends against libelf
 * read directly, every compression, truncated and corrupt files;
 * secmap_ko_find() and the index behind it over a fake tree; and how
 * "secmap dump" uses them.
 *
 * The fixtures are built at test time in a temporary directory: a C file
 * with code in .text, .text.unlikely and .init.text, data, .data..percpu
 * and a custom section, compiled with cc -c and linked with
 * "ld -r --build-id=sha1" as kbuild links a .ko, then compressed with the
 * xz, zstd and gzip tools.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"

#include "dump.h"
#include "dump_ko.h"
#include "internal.h"
#include "json_out.h"
#include "json_read.h"
#include "msg.h"
#include "secmap_cli.h"

/* lib/ko/ko.c, hidden from the shared library; the static one has it. */
int libsecmap_ko_decompress(const uint8_t *in, size_t in_len, size_t cap,
			    uint8_t **out, size_t *out_len);

static const char fixture_src[] =
	"#ifndef VARIANT\n#define VARIANT 0\n#endif\n"
	"int counter = 3;\n"
	"int zeroed;\n"
	"int percpu_var __attribute__((section(\".data..percpu\"))) = 1;\n"
	"const int custom_table[4] __attribute__((section(\"__custom_table\"), used)) ="
	" { 1, 2, 3, VARIANT };\n"
	"__attribute__((noinline, used)) int hot_fn(int x) { return x + counter + VARIANT; }\n"
	"__attribute__((noinline, used)) int hot_fn2(int x) { return x * counter + zeroed; }\n"
	"__attribute__((section(\".text.unlikely\"), noinline, used)) int cold_fn(int x)"
	" { return x * 7; }\n"
	"__attribute__((section(\".init.text\"), used)) int init_fn(void)"
	" { return hot_fn(1) + cold_fn(2) + percpu_var; }\n";

/* The sections of the fixture the tests name. */
static const char *const fixture_sections[] = {
	".text", ".text.unlikely", ".init.text", ".data", ".bss", ".data..percpu",
	"__custom_table", ".note.gnu.build-id",
};

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	int n, status;

	va_start(ap, fmt);
	n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	status = system(cmd);
	free(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "we");
	int err;

	if (!f)
		return -errno;
	err = fwrite(buf, 1, len, f) == len ? 0 : -EIO;
	if (fclose(f))
		err = -EIO;
	return err;
}

static int read_whole(const char *path, uint8_t **buf, size_t *len)
{
	struct stat st;
	FILE *f = fopen(path, "re");

	if (!f || fstat(fileno(f), &st)) {
		if (f)
			fclose(f);
		return -errno;
	}
	*buf = malloc(st.st_size ? st.st_size : 1);
	*len = st.st_size;
	if (!*buf || fread(*buf, 1, *len, f) != *len) {
		fclose(f);
		free(*buf);
		return -EIO;
	}
	fclose(f);
	return 0;
}

static char *path_in(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* The build-id as readelf -n prints it: an implementation other than ours. */
static int readelf_build_id(const char *path, char *hex, size_t size)
{
	char *cmd, line[512];
	FILE *p;
	int found = -ENOENT;

	if (asprintf(&cmd, "readelf -n '%s' 2>/dev/null", path) < 0)
		return -ENOMEM;
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return -errno;
	while (fgets(line, sizeof(line), p)) {
		char *s = strstr(line, "Build ID: ");

		if (s && sscanf(s + strlen("Build ID: "), "%127[0-9a-f]", hex) == 1 &&
		    strlen(hex) < size)
			found = 0;
	}
	pclose(p);
	return found;
}

static void to_hex(const uint8_t *id, size_t len, char *hex)
{
	size_t i;

	for (i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	hex[2 * len] = '\0';
}

/*
 * Build @dir/@name.ko from fixture_src (@variant changes its contents, so
 * its build-id). ld -r --build-id writes .note.gnu.build-id into the
 * relocatable, as kbuild relies on; should a linker not, the note is added
 * with objcopy as "GNU" NT_GNU_BUILD_ID of a fixed 20 bytes.
 */
static int build_fixture(const char *dir, const char *name, int variant)
{

	if (run("cd '%s' && printf '%%s' '%s' > %s.c && "
		"cc -c -O2 -fno-asynchronous-unwind-tables -DVARIANT=%d -o %s.o %s.c && "
		"ld -r --build-id=sha1 -o %s.ko %s.o",
		dir, fixture_src, name, variant, name, name, name, name))
		return -1;
	if (run("cd '%s' && readelf -n %s.ko | grep -q 'Build ID'", dir, name) == 0)
		return 0;
	/* namesz 4, descsz 20, type 3, "GNU\0", 20 bytes of id */
	if (run("cd '%s' && printf '\\004\\0\\0\\0\\024\\0\\0\\0\\003\\0\\0\\0GNU\\0%%020d' %d"
		" > note.bin && objcopy --add-section .note.gnu.build-id=note.bin "
		"--set-section-flags .note.gnu.build-id=alloc,readonly %s.ko",
		dir, variant, name))
		return -1;
	return run("cd '%s' && readelf -n %s.ko | grep -q 'Build ID'", dir, name) ? -1 : 0;
}

/* A section as libelf reads it straight from the file. */
struct ref_sec {
	char name[128];
	GElf_Shdr shdr;
	size_t nr_symbols;
	int dup;	/* the name occurs more than once */
};

static int ref_sections(const char *path, struct ref_sec **out, size_t *nr)
{
	Elf_Scn *scn = NULL;
	struct ref_sec *secs;
	size_t shnum, shstrndx, i, j;
	Elf *elf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrnum(elf, &shnum) || elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	secs = calloc(shnum, sizeof(*secs));
	if (!secs)
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		size_t idx = elf_ndxscn(scn);
		const char *name;

		gelf_getshdr(scn, &secs[idx].shdr);
		name = elf_strptr(elf, shstrndx, secs[idx].shdr.sh_name);
		snprintf(secs[idx].name, sizeof(secs[idx].name), "%s", name ? name : "");
		if (secs[idx].shdr.sh_type == SHT_SYMTAB) {
			Elf_Data *data = elf_getdata(scn, NULL);
			size_t k, n = secs[idx].shdr.sh_size / secs[idx].shdr.sh_entsize;

			for (k = 0; data && k < n; k++) {
				GElf_Sym sym;
				int type;

				gelf_getsym(data, k, &sym);
				type = GELF_ST_TYPE(sym.st_info);
				if ((type == STT_FUNC || type == STT_OBJECT) &&
				    sym.st_shndx != SHN_UNDEF && sym.st_shndx < shnum &&
				    sym.st_shndx < SHN_LORESERVE)
					secs[sym.st_shndx].nr_symbols++;
			}
		}
	}
	for (i = 1; i < shnum; i++)
		for (j = 1; j < shnum; j++)
			if (i != j && !strcmp(secs[i].name, secs[j].name))
				secs[i].dup = 1;
	elf_end(elf);
	close(fd);
	*out = secs;
	*nr = shnum;
	return 0;
}

/* Two opened files say the same about every section and the build-id. */
static int ko_same(struct __test_metadata *_metadata, const struct secmap_ko *a,
		   const struct secmap_ko *b)
{
	SECMAP_OPTS(secmap_ko_section, sa);
	SECMAP_OPTS(secmap_ko_section, sb);
	const uint8_t *ida, *idb;
	size_t i, la = secmap_ko_build_id(a, &ida), lb = secmap_ko_build_id(b, &idb);

	EXPECT_EQ(la, lb);
	if (la != lb || memcmp(ida, idb, la))
		return 0;
	for (i = 0; i < sizeof(fixture_sections) / sizeof(*fixture_sections); i++) {
		EXPECT_EQ(0, secmap_ko_section(a, fixture_sections[i], &sa));
		EXPECT_EQ(0, secmap_ko_section(b, fixture_sections[i], &sb));
		EXPECT_EQ(sa.size, sb.size);
		EXPECT_EQ(sa.offset, sb.offset);
		EXPECT_EQ(sa.flags, sb.flags);
		EXPECT_EQ(sa.nr_symbols, sb.nr_symbols);
	}
	return 1;
}

FIXTURE(ko) {
	char dir[64];
	char *ko, *xz, *zst, *gz;
	uint8_t *img;		/* fixture.ko's bytes */
	size_t len;
	uint8_t id[64];		/* its build-id, per readelf */
	size_t id_len;
	char id_hex[130];
};

FIXTURE_SETUP(ko)
{
	size_t i;

	strcpy(self->dir, "/tmp/secmap-ko-test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, build_fixture(self->dir, "fixture", 0)) {
		TH_LOG("cannot build the fixture with cc and ld in %s", self->dir);
	}
	self->ko = path_in(self->dir, "fixture.ko");
	self->xz = path_in(self->dir, "fixture.ko.xz");
	self->zst = path_in(self->dir, "fixture.ko.zst");
	self->gz = path_in(self->dir, "fixture.ko.gz");
	ASSERT_NE(NULL, self->gz);
	/* As kbuild compresses modules (xz: CRC32 check, 1 MiB dictionary). */
	ASSERT_EQ(0, run("cd %s && xz --check=crc32 --lzma2=dict=1MiB -k -c fixture.ko "
			 "> fixture.ko.xz && zstd -q -19 -c fixture.ko > fixture.ko.zst && "
			 "gzip -9 -n -c fixture.ko > fixture.ko.gz", self->dir));
	ASSERT_EQ(0, read_whole(self->ko, &self->img, &self->len));
	ASSERT_EQ(0, readelf_build_id(self->ko, self->id_hex, sizeof(self->id_hex)));
	self->id_len = strlen(self->id_hex) / 2;
	for (i = 0; i < self->id_len; i++)
		sscanf(self->id_hex + 2 * i, "%2hhx", &self->id[i]);
	json_output = false;
	pretty_output = false;
}

FIXTURE_TEARDOWN(ko)
{
	if (self->dir[0] && getenv("SECMAP_KEEP_TMP") == NULL)
		run("rm -rf '%s'", self->dir);
	free(self->ko);
	free(self->xz);
	free(self->zst);
	free(self->gz);
	free(self->img);
}

/* Write @len bytes of @buf to @dir/@name; returns the malloc()ed path. */
static char *put(const char *dir, const char *name, const void *buf, size_t len)
{
	char *p = path_in(dir, name);

	if (p && write_file(p, buf, len)) {
		free(p);
		return NULL;
	}
	return p;
}

static int open_err(const char *path)
{
	struct secmap_ko *ko = (struct secmap_ko *)1;
	int err = secmap_ko_open(path, &ko);

	if (!err)
		secmap_ko_close(ko);
	else if (ko != NULL || errno != -err)
		return 1000;	/* *ko must be NULL and errno set on failure */
	return err;
}

TEST_F(ko, sections_match_libelf)
{
	struct ref_sec *ref;
	struct secmap_ko *ko;
	size_t nr, i, checked = 0;

	ASSERT_EQ(0, ref_sections(self->ko, &ref, &nr));
	ASSERT_EQ(0, secmap_ko_open(self->ko, &ko));
	for (i = 1; i < nr; i++) {
		SECMAP_OPTS(secmap_ko_section, s);

		if (ref[i].dup || !ref[i].name[0])
			continue;
		ASSERT_EQ(0, secmap_ko_section(ko, ref[i].name, &s)) {
			TH_LOG("section %s", ref[i].name);
		}
		EXPECT_EQ(ref[i].shdr.sh_size, s.size);
		EXPECT_EQ(ref[i].shdr.sh_offset, s.offset);
		EXPECT_EQ(ref[i].shdr.sh_flags, s.flags);
		EXPECT_EQ(ref[i].nr_symbols, s.nr_symbols) {
			TH_LOG("section %s", ref[i].name);
		}
		checked++;
	}
	EXPECT_LE(10U, checked);
	secmap_ko_close(ko);
	free(ref);
}

TEST_F(ko, fixture_sections)
{
	SECMAP_OPTS(secmap_ko_section, s);
	struct secmap_ko *ko;

	ASSERT_EQ(0, secmap_ko_open(self->ko, &ko));
	ASSERT_EQ(0, secmap_ko_section(ko, ".text", &s));
	EXPECT_TRUE(s.flags & SHF_EXECINSTR);
	EXPECT_TRUE(s.flags & SHF_ALLOC);
	EXPECT_EQ(2U, s.nr_symbols);		/* hot_fn, hot_fn2 */
	EXPECT_NE(0U, s.size);
	EXPECT_NE(0U, s.offset);
	ASSERT_EQ(0, secmap_ko_section(ko, ".text.unlikely", &s));
	EXPECT_TRUE(s.flags & SHF_EXECINSTR);
	EXPECT_EQ(1U, s.nr_symbols);		/* cold_fn */
	ASSERT_EQ(0, secmap_ko_section(ko, ".init.text", &s));
	EXPECT_TRUE(s.flags & SHF_EXECINSTR);
	EXPECT_EQ(1U, s.nr_symbols);		/* init_fn */
	ASSERT_EQ(0, secmap_ko_section(ko, ".data", &s));
	EXPECT_FALSE(s.flags & SHF_EXECINSTR);
	EXPECT_TRUE(s.flags & SHF_WRITE);
	EXPECT_EQ(1U, s.nr_symbols);		/* counter */
	/* The loader clears SHF_ALLOC in its copy only; the file has it. */
	ASSERT_EQ(0, secmap_ko_section(ko, ".data..percpu", &s));
	EXPECT_TRUE(s.flags & SHF_ALLOC);
	EXPECT_EQ(4U, s.size);
	EXPECT_EQ(1U, s.nr_symbols);		/* percpu_var */
	ASSERT_EQ(0, secmap_ko_section(ko, "__custom_table", &s));
	EXPECT_EQ(16U, s.size);
	EXPECT_EQ(1U, s.nr_symbols);		/* custom_table */
	EXPECT_EQ(-ENOENT, secmap_ko_section(ko, ".nosuch", &s));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-ENOENT, secmap_ko_section(ko, ".tex", &s));
	EXPECT_EQ(-EINVAL, secmap_ko_section(ko, NULL, &s));
	secmap_ko_close(ko);
	secmap_ko_close(NULL);
}

TEST_F(ko, build_id_matches_note)
{
	struct secmap_ko *ko;
	const uint8_t *id;
	char hex[SECMAP_BUILD_ID_STR_SIZE];
	size_t len;

	ASSERT_EQ(0, secmap_ko_open(self->ko, &ko));
	len = secmap_ko_build_id(ko, &id);
	ASSERT_EQ(20U, len);		/* sha1 */
	/* The library's text form, against readelf's. */
	ASSERT_EQ(0, secmap_build_id_str(id, len, hex, sizeof(hex)));
	EXPECT_STREQ(self->id_hex, hex);
	/* Exactly 2 * len + 1 bytes are needed. */
	EXPECT_EQ(-ENOSPC, secmap_build_id_str(id, len, hex, 2 * len));
	EXPECT_EQ(0, secmap_build_id_str(id, len, hex, 2 * len + 1));
	EXPECT_STREQ(self->id_hex, hex);
	EXPECT_EQ(-ENOSPC, secmap_build_id_str(id, len, hex, 0));
	EXPECT_EQ(-EINVAL, secmap_build_id_str(NULL, len, hex, sizeof(hex)));
	secmap_ko_close(ko);
}

/*
 * The .ko's note goes through the parser sysfs' notes go through: a
 * descriptor that runs past its section is a corrupt file, not an id
 * made of whatever bytes follow.
 */
TEST_F(ko, build_id_note_past_section_einval)
{
	struct ref_sec *ref;
	uint8_t *img;
	uint32_t descsz;
	size_t nr, i, off = 0;
	char *path;

	ASSERT_EQ(0, ref_sections(self->ko, &ref, &nr));
	for (i = 1; i < nr; i++)
		if (!strcmp(ref[i].name, ".note.gnu.build-id"))
			off = ref[i].shdr.sh_offset;
	free(ref);
	ASSERT_NE(0U, off);
	img = malloc(self->len);
	ASSERT_NE(NULL, img);
	memcpy(img, self->img, self->len);
	/* n_descsz, the note header's second word: 20 becomes 4096. */
	memcpy(&descsz, img + off + 4, sizeof(descsz));
	ASSERT_EQ(20U, descsz);
	descsz = 4096;
	memcpy(img + off + 4, &descsz, sizeof(descsz));
	path = path_in(self->dir, "cut-note.ko");
	ASSERT_EQ(0, write_file(path, img, self->len));
	EXPECT_EQ(-EINVAL, open_err(path));
	free(path);
	free(img);
}

TEST_F(ko, no_build_id)
{
	struct secmap_ko *ko;
	const uint8_t *id = (const uint8_t *)1;

	ASSERT_EQ(0, run("cd %s && objcopy --remove-section .note.gnu.build-id fixture.ko "
			 "plain.ko", self->dir));
	ASSERT_EQ(0, secmap_ko_open(self->ko, &ko));
	secmap_ko_close(ko);
	free(self->ko);
	self->ko = path_in(self->dir, "plain.ko");
	ASSERT_EQ(0, secmap_ko_open(self->ko, &ko));
	EXPECT_EQ(0U, secmap_ko_build_id(ko, &id));
	EXPECT_EQ(NULL, id);
	secmap_ko_close(ko);
}

TEST_F(ko, compressed_identical)
{
	const char *paths[] = { self->xz, self->zst, self->gz };
	struct secmap_ko *plain, *ko;
	size_t i;

	ASSERT_EQ(0, secmap_ko_open(self->ko, &plain));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, secmap_ko_open(paths[i], &ko)) {
			TH_LOG("%s", paths[i]);
		}
		EXPECT_TRUE(ko_same(_metadata, plain, ko));
		secmap_ko_close(ko);
	}
	secmap_ko_close(plain);
}

TEST_F(ko, detected_by_magic_not_name)
{
	struct secmap_ko *plain, *ko;

	ASSERT_EQ(0, run("cd %s && cp fixture.ko.zst renamed.ko && cp fixture.ko renamed.ko.xz "
			 "&& cat fixture.ko.gz fixture.ko.gz > twice.gz && "
			 "xz -c fixture.ko > two.xz && xz -c fixture.ko | head -c 0 >> two.xz",
			 self->dir));
	ASSERT_EQ(0, secmap_ko_open(self->ko, &plain));
	free(self->ko);
	self->ko = path_in(self->dir, "renamed.ko");
	ASSERT_EQ(0, secmap_ko_open(self->ko, &ko));
	EXPECT_TRUE(ko_same(_metadata, plain, ko));
	secmap_ko_close(ko);
	free(self->ko);
	self->ko = path_in(self->dir, "renamed.ko.xz");
	ASSERT_EQ(0, secmap_ko_open(self->ko, &ko));
	EXPECT_TRUE(ko_same(_metadata, plain, ko));
	secmap_ko_close(ko);
	/* Two gzip members, as gzip -d reads them: the ELF, then more after it. */
	free(self->ko);
	self->ko = path_in(self->dir, "twice.gz");
	ASSERT_EQ(0, secmap_ko_open(self->ko, &ko));
	EXPECT_TRUE(ko_same(_metadata, plain, ko));
	secmap_ko_close(ko);
	secmap_ko_close(plain);
}

/* Every 1/16th of each file, a few bytes past the ELF header, one byte short. */
TEST_F(ko, truncated_einval)
{
	const char *paths[] = { self->ko, self->xz, self->zst, self->gz };
	size_t i, k, lens[16 + 12], nlens;

	for (i = 0; i < 4; i++) {
		uint8_t *buf;
		size_t len;

		ASSERT_EQ(0, read_whole(paths[i], &buf, &len));
		nlens = 0;
		for (k = 0; k < 16; k++)
			lens[nlens++] = len * k / 16;
		for (k = 0; k < 10; k++)
			lens[nlens++] = sizeof(Elf64_Ehdr) - 2 + k;
		lens[nlens++] = len - 1;
		lens[nlens++] = 1;
		for (k = 0; k < nlens; k++) {
			char *p;

			if (lens[k] >= len)
				continue;
			p = put(self->dir, "cut.ko", buf, lens[k]);
			ASSERT_NE(NULL, p);
			EXPECT_EQ(-EINVAL, open_err(p)) {
				TH_LOG("%s cut to %zu of %zu bytes", paths[i], lens[k], len);
			}
			free(p);
		}
		free(buf);
	}
}

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put_u16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

TEST_F(ko, corrupt_headers_einval)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)self->img;
	uint8_t *buf = malloc(self->len);
	size_t shoff = eh->e_shoff, i;
	struct {
		const char *what;
		size_t off;	/* where to write, in the image */
		uint64_t val;
		int width;	/* 8 or 2 bytes */
	} cases[] = {
		{ "e_shoff past the end", offsetof(Elf64_Ehdr, e_shoff), 1ULL << 40, 8 },
		{ "e_shoff near the end", offsetof(Elf64_Ehdr, e_shoff), self->len - 10, 8 },
		{ "e_shoff wraps", offsetof(Elf64_Ehdr, e_shoff), UINT64_MAX - 8, 8 },
		{ "e_shoff into the data", offsetof(Elf64_Ehdr, e_shoff), 0x41, 8 },
		{ "e_shnum too many", offsetof(Elf64_Ehdr, e_shnum), 0xfeff, 2 },
		{ "e_shstrndx out of range", offsetof(Elf64_Ehdr, e_shstrndx), 0xfeff, 2 },
		{ "e_shstrndx not a strtab", offsetof(Elf64_Ehdr, e_shstrndx), 1, 2 },
		{ "sh_offset past the end",
		  shoff + 2 * sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_offset), 1ULL << 40, 8 },
		{ "sh_size past the end",
		  shoff + 2 * sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_size), 1ULL << 40, 8 },
		{ "sh_size wraps",
		  shoff + 2 * sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_size), UINT64_MAX, 8 },
	};

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(ET_REL, eh->e_type);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *p;

		memcpy(buf, self->img, self->len);
		if (cases[i].width == 8)
			put_u64(buf + cases[i].off, cases[i].val);
		else
			put_u16(buf + cases[i].off, cases[i].val);
		p = put(self->dir, "bad.ko", buf, self->len);
		ASSERT_NE(NULL, p);
		EXPECT_EQ(-EINVAL, open_err(p)) {
			TH_LOG("%s", cases[i].what);
		}
		free(p);
	}
	/* A corrupt section header table, compressed: the same answer. */
	memcpy(buf, self->img, self->len);
	memset(buf + shoff + sizeof(Elf64_Shdr), 0xff, 3 * sizeof(Elf64_Shdr));
	free(put(self->dir, "bad.ko", buf, self->len));
	ASSERT_EQ(0, run("cd %s && xz -c bad.ko > bad.ko.xz && zstd -q -c bad.ko > bad.ko.zst",
			 self->dir));
	for (i = 0; i < 3; i++) {
		static const char *const names[] = { "bad.ko", "bad.ko.xz", "bad.ko.zst" };
		char *p = path_in(self->dir, names[i]);

		EXPECT_EQ(-EINVAL, open_err(p)) {
			TH_LOG("%s", names[i]);
		}
		free(p);
	}
	free(buf);
}

/* Deterministic byte flips over the headers and tables: no crash, no leak (ASan). */
TEST_F(ko, byte_flips_never_crash)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)self->img;
	uint8_t *buf = malloc(self->len);
	uint32_t rnd = 0x12345678;
	char *p = path_in(self->dir, "flip.ko");
	int i, k, opened = 0;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, p);
	for (i = 0; i < 400; i++) {
		struct secmap_ko *ko;
		SECMAP_OPTS(secmap_ko_section, s);
		const uint8_t *id;
		int err;

		memcpy(buf, self->img, self->len);
		for (k = 0; k < 1 + i % 4; k++) {
			size_t off;

			rnd = rnd * 1103515245 + 12345;
			/* Half in the ELF header and section headers, half anywhere. */
			if (rnd & 0x10000) {
				off = (rnd >> 17) % (sizeof(Elf64_Ehdr) + eh->e_shnum *
						     sizeof(Elf64_Shdr));
				if (off >= sizeof(Elf64_Ehdr))
					off += eh->e_shoff - sizeof(Elf64_Ehdr);
			} else {
				off = (rnd >> 17) % self->len;
			}
			if (off < self->len)
				buf[off] ^= 1 << (rnd >> 8 & 7) | (rnd & 0x100 ? 0x80 : 0);
		}
		ASSERT_EQ(0, write_file(p, buf, self->len));
		err = secmap_ko_open(p, &ko);
		if (err) {
			EXPECT_EQ(-EINVAL, err);
			continue;
		}
		opened++;
		secmap_ko_build_id(ko, &id);
		for (k = 0; k < (int)(sizeof(fixture_sections) / sizeof(*fixture_sections)); k++)
			secmap_ko_section(ko, fixture_sections[k], &s);
		secmap_ko_close(ko);
	}
	TH_LOG("%d of 400 damaged files still opened", opened);
	free(p);
	free(buf);
}

TEST_F(ko, not_a_module)
{
	static const char text[] = "this is not an ELF file, nor compressed\n";
	static const char bz2[] = "BZh91AY&SY";
	const char *dir = self->dir;
	uint8_t *buf;
	size_t len;
	char *p;

	p = put(dir, "text.ko", text, sizeof(text));
	EXPECT_EQ(-EINVAL, open_err(p));
	free(p);
	p = put(dir, "empty.ko", "", 0);
	EXPECT_EQ(-EINVAL, open_err(p));
	free(p);
	p = put(dir, "bzip2.ko", bz2, sizeof(bz2));
	EXPECT_EQ(-ENOTSUP, open_err(p));
	free(p);
	/* A gzip/xz/zstd stream of something that is not an ELF. */
	ASSERT_EQ(0, run("cd %s && printf 'hello' | gzip -c > hello.gz && "
			 "printf 'hello' | xz -c > hello.xz && printf 'hello' | zstd -q -c > "
			 "hello.zst", dir));
	p = path_in(dir, "hello.gz");
	EXPECT_EQ(-EINVAL, open_err(p));
	free(p);
	p = path_in(dir, "hello.xz");
	EXPECT_EQ(-EINVAL, open_err(p));
	free(p);
	p = path_in(dir, "hello.zst");
	EXPECT_EQ(-EINVAL, open_err(p));
	free(p);

	/* Linked programs are ELF too, but not relocatable. */
	ASSERT_EQ(0, run("cd %s && printf 'int main(void) { return 0; }\\n' > prog.c && "
			 "cc -no-pie -o prog.exec prog.c && cc -pie -fPIE -o prog.pie prog.c && "
			 "cc -shared -fPIC -o prog.so prog.c && xz -k prog.exec", dir));
	p = path_in(dir, "prog.exec");
	ASSERT_EQ(0, read_whole(p, &buf, &len));
	EXPECT_EQ(ET_EXEC, ((Elf64_Ehdr *)buf)->e_type);
	free(buf);
	EXPECT_EQ(-EINVAL, open_err(p));
	free(p);
	p = path_in(dir, "prog.exec.xz");
	EXPECT_EQ(-EINVAL, open_err(p));
	free(p);
	p = path_in(dir, "prog.pie");
	EXPECT_EQ(-EINVAL, open_err(p));
	free(p);
	p = path_in(dir, "prog.so");
	EXPECT_EQ(-EINVAL, open_err(p));
	free(p);

	/* The fixture made ELFCLASS32 in name only. */
	buf = malloc(self->len);
	ASSERT_NE(NULL, buf);
	memcpy(buf, self->img, self->len);
	buf[EI_CLASS] = ELFCLASS32;
	p = put(dir, "class32.ko", buf, self->len);
	EXPECT_EQ(-EINVAL, open_err(p));
	free(p);
	free(buf);

	EXPECT_EQ(-ENOENT, open_err("/nonexistent/secmap/x.ko"));
	EXPECT_EQ(-EISDIR, open_err(dir));
	EXPECT_EQ(-EINVAL, open_err("/dev/null"));
	EXPECT_EQ(-EINVAL, secmap_ko_open(NULL, (struct secmap_ko **)&buf));
	EXPECT_EQ(-EINVAL, secmap_ko_open(self->ko, NULL));
}

/* Root reads any file, so drop to nobody in a child to see -EACCES. */
TEST_F(ko, eacces)
{
	pid_t pid;
	int status;

	ASSERT_EQ(0, chmod(self->ko, 0));
	ASSERT_EQ(0, chmod(self->dir, 0755));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(2);
		_exit(open_err(self->ko) == -EACCES ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(ko, decompress_cap_efbig)
{
	const char *paths[] = { self->xz, self->zst, self->gz };
	size_t i;

	for (i = 0; i < 3; i++) {
		uint8_t *in, *out;
		size_t in_len, out_len;

		ASSERT_EQ(0, read_whole(paths[i], &in, &in_len));
		/* Exactly the size fits; a byte less does not. */
		ASSERT_EQ(0, libsecmap_ko_decompress(in, in_len, self->len, &out, &out_len));
		EXPECT_EQ(self->len, out_len);
		EXPECT_EQ(0, memcmp(out, self->img, self->len));
		free(out);
		EXPECT_EQ(-EFBIG, libsecmap_ko_decompress(in, in_len, self->len - 1, &out,
							  &out_len)) {
			TH_LOG("%s", paths[i]);
		}
		EXPECT_EQ(NULL, out);
		EXPECT_EQ(-EFBIG, libsecmap_ko_decompress(in, in_len, 100, &out, &out_len));
		free(in);
	}
}

/*
 * libsecmap_ko_open_budget(): a compressed file that fits opens and costs
 * its decompressed size; a byte less of budget is -EDQUOT (not -EFBIG, not
 * a module) and costs what was decompressed before it stopped; a plain
 * .ko costs nothing, even with no budget left.
 */
TEST_F(ko, open_budget)
{
	const char *paths[] = { self->xz, self->zst, self->gz };
	struct secmap_ko *ko;
	size_t i, spent;

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, libsecmap_ko_open_budget(paths[i], self->len, &ko, &spent));
		EXPECT_EQ(self->len, spent);
		secmap_ko_close(ko);
		ko = (struct secmap_ko *)1;
		EXPECT_EQ(-EDQUOT, libsecmap_ko_open_budget(paths[i], self->len - 1, &ko, &spent)) {
			TH_LOG("%s", paths[i]);
		}
		EXPECT_EQ(NULL, ko);
		EXPECT_EQ(self->len, spent);	/* stopped one byte past the budget */
		EXPECT_EQ(-EDQUOT, libsecmap_ko_open_budget(paths[i], 0, &ko, &spent));
		EXPECT_LE(spent, 1);
		ASSERT_EQ(0, libsecmap_ko_open_budget(paths[i], SIZE_MAX, &ko, &spent));
		EXPECT_EQ(self->len, spent);
		secmap_ko_close(ko);
	}
	ASSERT_EQ(0, libsecmap_ko_open_budget(self->ko, 0, &ko, &spent));
	EXPECT_EQ(0, spent);
	secmap_ko_close(ko);
}

/*
 * @path: zstd of fixture.ko's @len bytes at @elf, then @zeros zero bytes
 * (ignored by an ELF reader): a valid module that inflates from some KiB.
 */
static int write_ko_bomb(const char *path, const uint8_t *elf, size_t len, size_t zeros)
{
	static const uint8_t zero[1 << 16];
	size_t out_size = ZSTD_CStreamOutSize(), left = zeros, ret;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	uint8_t *out = malloc(out_size);
	FILE *f = fopen(path, "we");
	int err = cc && out && f ? 0 : -ENOMEM;
	bool first = true;

	while (!err) {
		ZSTD_inBuffer in = { first ? elf : zero, first ? len : 0, 0 };
		ZSTD_EndDirective mode = ZSTD_e_continue;

		if (!first) {
			in.size = left < sizeof(zero) ? left : sizeof(zero);
			left -= in.size;
			if (!left)
				mode = ZSTD_e_end;
		}
		first = false;
		do {
			ZSTD_outBuffer ob = { out, out_size, 0 };

			ret = ZSTD_compressStream2(cc, &ob, &in, mode);
			if (ZSTD_isError(ret) || fwrite(out, 1, ob.pos, f) != ob.pos)
				err = -EIO;
		} while (!err && (mode == ZSTD_e_end ? ret != 0 : in.pos < in.size));
		if (mode == ZSTD_e_end)
			break;
	}
	if (f && fclose(f) && !err)
		err = -EIO;
	ZSTD_freeCCtx(cc);
	free(out);
	return err;
}

#define NR_KO_BOMBS	4
#define KO_BOMB_ZEROS	((size_t)500 << 20)	/* under the 512 MiB cap of one file */
#define KO_BOMB_BASE	0xffffffffc0100000ull

/*
 * The resolver keeps every .ko it reads open: 4 small .ko.zst of 500 MiB
 * each held 2 GB. One resolver decompresses 1 GiB in all: the first two
 * are read, the rest are refused with the reason, and the modules before
 * them still resolve. Run in a child, whose peak RSS is the measure.
 */
TEST_F(ko, resolver_decompression_budget)
{
	char name[16], path[PATH_MAX], *dir;
	const char *paths[] = { NULL, NULL };
	SECMAP_OPTS(secmap_ko_search, search, .paths = paths, .release = "test", .modules_root = "",
					   .debug_root = "", .buildid_cache = "");
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &search);
	struct rusage ru;
	int status, i;
	pid_t pid;

	dir = path_in(self->dir, "bombs");
	ASSERT_NE(NULL, dir);
	ASSERT_EQ(0, mkdir(dir, 0755));
	paths[0] = dir;
	for (i = 0; i < NR_KO_BOMBS; i++) {
		snprintf(path, sizeof(path), "%s/bomb%d.ko.zst", dir, i);
		ASSERT_EQ(0, write_ko_bomb(path, self->img, self->len, KO_BOMB_ZEROS));
	}

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		SECMAP_OPTS(secmap_resolver_module, mod);
		SECMAP_OPTS(secmap_resolution, r);
		struct secmap_resolver *res;
		SECMAP_OPTS(secmap_ko_section, text);
		struct secmap_ko *ko;

		if (secmap_ko_open(self->ko, &ko) || secmap_ko_section(ko, ".text", &text))
			_exit(10);
		secmap_ko_close(ko);
		if (secmap_resolver_new(&opts, &res))
			_exit(11);
		for (i = 0; i < NR_KO_BOMBS; i++) {
			struct secmap_record rec = {
				.sz = sizeof(struct secmap_record),
				.type = SECMAP_REC_SEC_MAP, .pid = SECMAP_PID_HOST_KERNEL,
				.module = name, .section = ".text",
				.start = KO_BOMB_BASE + ((uint64_t)i << 20), .len = text.size,
				.time_local_ns = 100, .time_mono_ns = 100,
				.flags = SECMAP_MAP_F_EXEC, .seq = i + 1, .build_id = self->id,
				.build_id_len = self->id_len,
			};

			snprintf(name, sizeof(name), "bomb%d", i);
			if (secmap_resolver_add(res, &rec))
				_exit(12);
		}
		if (secmap_resolver_finish(res))
			_exit(13);
		for (i = 0; i < NR_KO_BOMBS; i++) {
			if (secmap_resolver_module(res, i, &mod))
				_exit(14);
			if (mod.err != (i < 2 ? 0 : -EDQUOT))
				_exit(20 + i);
			if (secmap_resolve(res, KO_BOMB_BASE + ((uint64_t)i << 20), 150, &r))
				_exit(30 + i);
			if (i < 2 ? !r.symbol : !!r.symbol || !r.reason ||
			    strcmp(r.reason, ".ko not read: decompression budget spent"))
				_exit(40 + i);
		}
		secmap_resolver_free(res);
		_exit(0);
	}
	ASSERT_EQ(pid, wait4(pid, &status, 0, &ru));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/*
	 * The images held stay within the budget (1024 MiB): 1000 MiB, plus
	 * the program (1030 MiB in all), plus under SANITIZE=1 the copies of
	 * realloc() and ASan's quarantine of 256 MiB (1320 MiB). All four
	 * held: 2000 MiB.
	 */
	TH_LOG("peak RSS %ld MiB", ru.ru_maxrss >> 10);
	EXPECT_LT(ru.ru_maxrss >> 10, 1600);
	free(dir);
}

/* A module's file in @dir/@rel (directories made), a copy of fixture.ko or @from. */
static int place_ko(const char *dir, const char *rel, const char *from)
{
	return run("cd %s && mkdir -p \"$(dirname '%s')\" && cp %s '%s'", dir, rel,
		   from ? from : "fixture.ko", rel);
}

/*
 * The result of a lookup that set *@path (or left it NULL on failure) as
 * @err: the path is put in @rel relative to the test's directory, for
 * readable expectations. 1000: the failure did not follow the conventions.
 */
static int found(int err, char *path, const char *dir, char *rel, size_t size)
{
	rel[0] = '\0';
	if (!err) {
		size_t dl = strlen(dir);

		snprintf(rel, size, "%s", strncmp(path, dir, dl) ? path : path + dl + 1);
		free(path);
	} else if (path != NULL || errno != -err) {
		return 1000;
	}
	return err;
}

static int find(const struct secmap_ko_search *s, const char *name, const uint8_t *id,
		size_t id_len, const char *dir, char *rel, size_t size)
{
	char *path = NULL;
	int err = secmap_ko_find(s, name, id, id_len, &path);

	return found(err, path, dir, rel, size);
}

/* Every place at once, then each winner removed to show the next. */
TEST_F(ko, find_order)
{
	const char *d = self->dir;
	char rel[PATH_MAX], *p[4], *cache, *debug, *mods, *hex = self->id_hex;
	const char *paths[3];
	SECMAP_OPTS(secmap_ko_search, s, .release = "6.1.0-test");

	p[0] = path_in(d, "paths/nomatch.ko");
	p[1] = path_in(d, "paths/dir");
	p[2] = NULL;
	cache = path_in(d, "cache");
	debug = path_in(d, "debug");
	mods = path_in(d, "mods");
	paths[0] = p[0];
	paths[1] = p[1];
	paths[2] = NULL;
	s.paths = paths;
	s.buildid_cache = cache;
	s.debug_root = debug;
	s.modules_root = mods;

	ASSERT_EQ(0, place_ko(d, "paths/nomatch.ko", NULL));
	ASSERT_EQ(0, place_ko(d, "paths/dir/a/b/foo-bar.ko.zst", "fixture.ko.zst"));
	ASSERT_EQ(0, run("cd %s && mkdir -p cache/.build-id/%.2s/%s && cp fixture.ko "
			 "cache/.build-id/%.2s/%s/elf && printf 'ffff t x\\n' > "
			 "cache/.build-id/%.2s/%s/kallsyms", d, hex, hex + 2, hex, hex + 2, hex,
			 hex + 2));
	ASSERT_EQ(0, run("cd %s && mkdir -p debug/.build-id/%.2s && cp fixture.ko "
			 "debug/.build-id/%.2s/%s.debug", d, hex, hex, hex + 2));
	ASSERT_EQ(0, place_ko(d, "debug/lib/modules/6.1.0-test/kernel/misc/foo_bar.ko.debug",
			      NULL));
	ASSERT_EQ(0, place_ko(d, "mods/6.1.0-test/kernel/drivers/misc/foo-bar.ko.xz",
			      "fixture.ko.xz"));
	ASSERT_EQ(0, run("cd %s && printf '%%s\\n' 'kernel/drivers/net/dummy.ko.xz:' "
			 "'kernel/drivers/misc/foo-bar.ko.xz: kernel/drivers/net/dummy.ko.xz' "
			 "> mods/6.1.0-test/modules.dep", d));

	/* a. the paths given, in order */
	EXPECT_EQ(0, find(&s, "foo_bar", self->id, self->id_len, d, rel, sizeof(rel)));
	EXPECT_STREQ("paths/dir/a/b/foo-bar.ko.zst", rel);
	/* b. perf's cache, by build-id: the "elf" file, not "kallsyms" */
	ASSERT_EQ(0, run("rm -r %s/paths/dir", d));
	EXPECT_EQ(0, find(&s, "foo_bar", self->id, self->id_len, d, rel, sizeof(rel)));
	snprintf(p[3] = malloc(300), 300, "cache/.build-id/%.2s/%s/elf", hex, hex + 2);
	EXPECT_STREQ(p[3], rel);
	/* ... then the debuginfo link */
	ASSERT_EQ(0, run("rm -r %s/cache", d));
	EXPECT_EQ(0, find(&s, "foo_bar", self->id, self->id_len, d, rel, sizeof(rel)));
	snprintf(p[3], 300, "debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	EXPECT_STREQ(p[3], rel);
	/* without a build-id, straight to c. */
	EXPECT_EQ(0, find(&s, "foo_bar", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("debug/lib/modules/6.1.0-test/kernel/misc/foo_bar.ko.debug", rel);
	/* c. the debuginfo tree of the release */
	ASSERT_EQ(0, run("rm -r %s/debug/.build-id", d));
	EXPECT_EQ(0, find(&s, "foo_bar", self->id, self->id_len, d, rel, sizeof(rel)));
	EXPECT_STREQ("debug/lib/modules/6.1.0-test/kernel/misc/foo_bar.ko.debug", rel);
	/* d. modules.dep */
	ASSERT_EQ(0, run("rm -r %s/debug", d));
	EXPECT_EQ(0, find(&s, "foo_bar", self->id, self->id_len, d, rel, sizeof(rel)));
	EXPECT_STREQ("mods/6.1.0-test/kernel/drivers/misc/foo-bar.ko.xz", rel);
	/* Another release has nothing. */
	s.release = "6.2.0-other";
	EXPECT_EQ(-ENOENT, find(&s, "foo_bar", self->id, self->id_len, d, rel, sizeof(rel)));
	s.release = "6.1.0-test";
	/* Listed, not installed: dummy.ko.xz */
	EXPECT_EQ(-ENOENT, find(&s, "dummy", NULL, 0, d, rel, sizeof(rel)));
	/* An explicit file is used only if its name is the module's. */
	paths[0] = self->gz;
	EXPECT_EQ(0, find(&s, "foo_bar", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("mods/6.1.0-test/kernel/drivers/misc/foo-bar.ko.xz", rel);
	EXPECT_EQ(0, find(&s, "fixture", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("fixture.ko.gz", rel);

	EXPECT_EQ(-EINVAL, find(&s, "", NULL, 0, d, rel, sizeof(rel)));
	free(p[3]);
	free(p[0]);
	free(p[1]);
	free(cache);
	free(debug);
	free(mods);
}

TEST_F(ko, find_dash_underscore)
{
	const char *d = self->dir;
	const char *paths[2] = { NULL, NULL };
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = "", .debug_root = "",
				      .buildid_cache = "");
	char rel[PATH_MAX];

	paths[0] = d;
	s.paths = paths;
	ASSERT_EQ(0, place_ko(d, "t/snd-hda_codec-generic.ko", NULL));
	EXPECT_EQ(0, find(&s, "snd_hda_codec_generic", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("t/snd-hda_codec-generic.ko", rel);
	EXPECT_EQ(0, find(&s, "snd-hda-codec-generic", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("t/snd-hda_codec-generic.ko", rel);
	/* Whole names only, and only module file endings. */
	EXPECT_EQ(-ENOENT, find(&s, "snd_hda_codec", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_EQ(-ENOENT, find(&s, "snd_hda_codec_generic2", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_EQ(-ENOENT, find(&s, "fixture.ko", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_EQ(-ENOENT, find(&s, "prog", NULL, 0, d, rel, sizeof(rel)));
	/* fixture.c, fixture.o are not modules; all four fixture.ko* are: the first by path. */
	EXPECT_EQ(0, find(&s, "fixture", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("fixture.ko", rel);
	/* "." and ".." in a name can not reach outside. */
	EXPECT_EQ(-EINVAL, find(&s, "../fixture", NULL, 0, d, rel, sizeof(rel)));
	/* modules.dep names: '-' and '_' alike there too. */
	s.paths = NULL;
	s.modules_root = d;
	ASSERT_EQ(0, place_ko(d, "r/kernel/sound/snd-hda-codec-generic.ko", NULL));
	ASSERT_EQ(0, run("printf 'kernel/sound/snd-hda-codec-generic.ko:\\n' > %s/r/modules.dep",
			 d));
	EXPECT_EQ(0, find(&s, "snd_hda_codec_generic", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("r/kernel/sound/snd-hda-codec-generic.ko", rel);
}

/*
 * A modules.dep names files in its release's tree only: "..", or an
 * absolute path elsewhere, is not followed, though the file is there. A
 * modules.dep that is a FIFO is no modules.dep (and does not hang).
 */
TEST_F(ko, modules_dep_stays_in_its_tree)
{
	const char *d = self->dir;
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .debug_root = "", .buildid_cache = "");
	char rel[PATH_MAX], dep[PATH_MAX];

	s.modules_root = d;
	ASSERT_EQ(0, place_ko(d, "outside/evil.ko", NULL));
	ASSERT_EQ(0, place_ko(d, "r/kernel/good.ko", NULL));
	ASSERT_EQ(0, place_ko(d, "r/kernel/old.ko", NULL));
	ASSERT_EQ(0, run("printf '../outside/evil.ko:\nkernel/../../outside/evil.ko:\n"
			 "%s/outside/evil.ko:\nkernel/good.ko:\n%s/r/kernel/old.ko:\n' "
			 "> %s/r/modules.dep", d, d, d));
	EXPECT_EQ(-ENOENT, find(&s, "evil", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_EQ(0, find(&s, "good", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("r/kernel/good.ko", rel);
	/* Absolute under the release's directory, as old depmods wrote: followed. */
	EXPECT_EQ(0, find(&s, "old", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("r/kernel/old.ko", rel);

	snprintf(dep, sizeof(dep), "%s/r/modules.dep", d);
	ASSERT_EQ(0, unlink(dep));
	ASSERT_EQ(0, mkfifo(dep, 0600));
	alarm(10);	/* a hang fails the test */
	EXPECT_EQ(-ENOENT, find(&s, "good", NULL, 0, d, rel, sizeof(rel)));
	alarm(0);
}

TEST_F(ko, find_buildid_cache_layouts)
{
	const char *d = self->dir, *hex = self->id_hex;
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = "", .debug_root = "");
	char rel[PATH_MAX], want[300];

	s.buildid_cache = d;
	/* perf's directory, with the module under a name other than "elf" */
	ASSERT_EQ(0, run("cd %s && mkdir -p .build-id/%.2s/%s && "
			 "printf 'ffff t x\\n' > .build-id/%.2s/%s/kallsyms && "
			 "printf 'probes\\n' > .build-id/%.2s/%s/probes && "
			 "cp fixture.ko.xz .build-id/%.2s/%s/zz-module", d, hex, hex + 2, hex,
			 hex + 2, hex, hex + 2, hex, hex + 2));
	EXPECT_EQ(0, find(&s, "anything", self->id, self->id_len, d, rel, sizeof(rel)));
	snprintf(want, sizeof(want), ".build-id/%.2s/%s/zz-module", hex, hex + 2);
	EXPECT_STREQ(want, rel);
	/* Nothing that opens as a module in the directory */
	ASSERT_EQ(0, run("rm %s/.build-id/%.2s/%s/zz-module", d, hex, hex + 2));
	EXPECT_EQ(-ENOENT, find(&s, "anything", self->id, self->id_len, d, rel, sizeof(rel)));
	/* Older perf: the link is the file itself (here a symlink to it). */
	ASSERT_EQ(0, run("cd %s && rm -r .build-id/%.2s/%s && ln -s ../../fixture.ko "
			 ".build-id/%.2s/%s", d, hex, hex + 2, hex, hex + 2));
	EXPECT_EQ(0, find(&s, "anything", self->id, self->id_len, d, rel, sizeof(rel)));
	snprintf(want, sizeof(want), ".build-id/%.2s/%s", hex, hex + 2);
	EXPECT_STREQ(want, rel);
	/* Another build-id is not there */
	self->id[5] ^= 1;
	EXPECT_EQ(-ENOENT, find(&s, "anything", self->id, self->id_len, d, rel, sizeof(rel)));
	/* No $HOME-derived cache in a test: an empty root is skipped. */
	s.buildid_cache = "";
	self->id[5] ^= 1;
	EXPECT_EQ(-ENOENT, find(&s, "anything", self->id, self->id_len, d, rel, sizeof(rel)));
}

/* One directory holding two builds of the module: the build-id decides. */
TEST_F(ko, find_prefers_build_id_match)
{
	const char *d = self->dir;
	const char *paths[2] = { NULL, NULL };
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = "", .debug_root = "",
				      .buildid_cache = "");
	char rel[PATH_MAX];

	ASSERT_EQ(0, build_fixture(d, "other", 1));
	ASSERT_EQ(0, place_ko(d, "tree/a-old/foo.ko", "other.ko"));
	ASSERT_EQ(0, place_ko(d, "tree/b-new/foo.ko.gz", "fixture.ko.gz"));
	paths[0] = path_in(d, "tree");
	s.paths = paths;
	EXPECT_EQ(0, find(&s, "foo", self->id, self->id_len, d, rel, sizeof(rel)));
	EXPECT_STREQ("tree/b-new/foo.ko.gz", rel);
	EXPECT_EQ(0, find(&s, "foo", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("tree/a-old/foo.ko", rel);
	/* No build-id matches: still the first, for dump to report the mismatch. */
	self->id[0] ^= 0xff;
	EXPECT_EQ(0, find(&s, "foo", self->id, self->id_len, d, rel, sizeof(rel)));
	EXPECT_STREQ("tree/a-old/foo.ko", rel);
	free((char *)paths[0]);
}

/* secmap_ko_index_find() through @idx, relative to @dir as find() does. */
static int index_find(struct secmap_ko_index *idx, const char *name, const uint8_t *id,
		      size_t id_len, const char *dir, char *rel, size_t size)
{
	/* Not NULL: a failure must set it to NULL itself. */
	char *path = (char *)1;
	int err = secmap_ko_index_find(idx, name, id, id_len, &path);

	return found(err, path, dir, rel, size);
}

/* Many lookups in one index answer what secmap_ko_find() answers, name by name. */
TEST_F(ko, index_same_as_find)
{
	static const char *const names[] = {
		"foo_bar", "foo-bar", "snd_hda_codec_generic", "snd-hda-codec_generic", "dummy",
		"veth", "fixture", "nosuch", "foo", "foo_bar_baz", "a_b",
	};
	const char *d = self->dir;
	char rel[PATH_MAX], want[PATH_MAX], *tree = path_in(d, "tree");
	const char *paths[3] = { tree, self->gz, NULL };
	SECMAP_OPTS(secmap_ko_search, s, .release = "r1", .buildid_cache = "", .paths = paths);
	struct secmap_ko_index *idx;
	char *mods = path_in(d, "mods"), *debug = path_in(d, "debug");
	size_t i, k;

	s.modules_root = mods;
	s.debug_root = debug;
	ASSERT_EQ(0, place_ko(d, "tree/x/foo-bar.ko.zst", "fixture.ko.zst"));
	ASSERT_EQ(0, place_ko(d, "tree/y/a-b.ko", NULL));
	ASSERT_EQ(0, place_ko(d, "debug/lib/modules/r1/kernel/veth.ko.debug", NULL));
	ASSERT_EQ(0, place_ko(d, "mods/r1/kernel/sound/snd-hda-codec-generic.ko.xz",
			      "fixture.ko.xz"));
	ASSERT_EQ(0, place_ko(d, "mods/r1/kernel/net/veth.ko", NULL));
	ASSERT_EQ(0, place_ko(d, "mods/r1/kernel/net/dummy.ko", NULL));
	ASSERT_EQ(0, run("cd %s && printf '%%s\\n' 'kernel/net/veth.ko:' "
			 "'kernel/sound/snd-hda-codec-generic.ko.xz: kernel/net/veth.ko' "
			 "'kernel/net/dummy.ko:' > mods/r1/modules.dep", d));

	ASSERT_EQ(0, secmap_ko_index_new(&s, &idx));
	/* Twice over, so that the second round runs on places already read. */
	for (k = 0; k < 2; k++) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			int want_err = find(&s, names[i], NULL, 0, d, want, sizeof(want));

			EXPECT_EQ(want_err, index_find(idx, names[i], NULL, 0, d, rel,
						       sizeof(rel))) {
				TH_LOG("%s", names[i]);
			}
			EXPECT_STREQ(want, rel);
		}
	}
	/* Spot checks of what both said. */
	EXPECT_EQ(0, index_find(idx, "snd-hda-codec_generic", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("mods/r1/kernel/sound/snd-hda-codec-generic.ko.xz", rel);
	EXPECT_EQ(0, index_find(idx, "veth", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("debug/lib/modules/r1/kernel/veth.ko.debug", rel);
	EXPECT_EQ(0, index_find(idx, "a_b", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("tree/y/a-b.ko", rel);
	EXPECT_EQ(0, index_find(idx, "fixture", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("fixture.ko.gz", rel);
	EXPECT_EQ(-ENOENT, index_find(idx, "foo", NULL, 0, d, rel, sizeof(rel)));
	secmap_ko_index_free(idx);
	free(tree);
	free(mods);
	free(debug);
}

/* No modules.dep, no release directory, no root at all: nothing found, no error. */
TEST_F(ko, index_missing_places)
{
	const char *d = self->dir;
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = d, .debug_root = "",
				      .buildid_cache = "");
	struct secmap_ko_index *idx;
	char rel[PATH_MAX];

	ASSERT_EQ(0, secmap_ko_index_new(&s, &idx));
	EXPECT_EQ(-ENOENT, index_find(idx, "fixture", NULL, 0, d, rel, sizeof(rel)));
	secmap_ko_index_free(idx);
	/* The release directory, without modules.dep */
	ASSERT_EQ(0, place_ko(d, "r/kernel/fixture.ko", NULL));
	ASSERT_EQ(0, secmap_ko_index_new(&s, &idx));
	EXPECT_EQ(-ENOENT, index_find(idx, "fixture", NULL, 0, d, rel, sizeof(rel)));
	secmap_ko_index_free(idx);
	/* Every root skipped */
	s.modules_root = "";
	ASSERT_EQ(0, secmap_ko_index_new(&s, &idx));
	EXPECT_EQ(-ENOENT, index_find(idx, "fixture", self->id, self->id_len, d, rel,
				      sizeof(rel)));
	secmap_ko_index_free(idx);
}

/*
 * modules.dep: the first installed among lines naming the module, in the
 * file's order; lines without a module file, or without a name, are skipped.
 */
TEST_F(ko, index_modules_dep_order)
{
	const char *d = self->dir;
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = d, .debug_root = "",
				      .buildid_cache = "");
	struct secmap_ko_index *idx;
	char rel[PATH_MAX];

	ASSERT_EQ(0, place_ko(d, "r/updates/z/foo.ko", NULL));
	ASSERT_EQ(0, place_ko(d, "r/kernel/a/foo.ko.xz", "fixture.ko.xz"));
	ASSERT_EQ(0, run("cd %s && printf '%%s\\n' ': kernel/a/foo.ko.xz' 'garbage' "
			 "'kernel/gone/foo.ko:' 'kernel/a/foo.txt:' 'updates/z/foo.ko:' "
			 "'kernel/a/foo.ko.xz:' '%s/r/kernel/a/foo.ko.xz:' > r/modules.dep", d, d));
	ASSERT_EQ(0, secmap_ko_index_new(&s, &idx));
	/* Not sorted by path: updates/ before kernel/, as listed (depmod's priority). */
	EXPECT_EQ(0, index_find(idx, "foo", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("r/updates/z/foo.ko", rel);
	secmap_ko_index_free(idx);
	/* Once that one is gone, the next listed; an absolute path is taken as is. */
	ASSERT_EQ(0, run("rm %s/r/updates/z/foo.ko", d));
	ASSERT_EQ(0, run("cd %s && printf '%%s\\n' '%s/r/kernel/a/foo.ko.xz:' "
			 "'kernel/a/foo.ko.xz:' > r/modules.dep", d, d));
	ASSERT_EQ(0, secmap_ko_index_new(&s, &idx));
	EXPECT_EQ(0, index_find(idx, "foo", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("r/kernel/a/foo.ko.xz", rel);
	secmap_ko_index_free(idx);
}

/*
 * Listings are read once, when a lookup first reaches them; by build-id
 * places are looked at on every lookup.
 */
TEST_F(ko, index_reads_listings_once)
{
	const char *d = self->dir, *hex = self->id_hex;
	char rel[PATH_MAX], want[300], *tree = path_in(d, "tree");
	const char *paths[2] = { tree, NULL };
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = "", .debug_root = "",
				      .paths = paths);
	struct secmap_ko_index *idx;

	s.buildid_cache = d;
	ASSERT_EQ(0, place_ko(d, "tree/one.ko", NULL));
	ASSERT_EQ(0, secmap_ko_index_new(&s, &idx));
	/* Created after the index, before its first lookup: seen. */
	ASSERT_EQ(0, place_ko(d, "tree/two.ko", NULL));
	EXPECT_EQ(0, index_find(idx, "two", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("tree/two.ko", rel);
	/* Created after that: not seen... */
	ASSERT_EQ(0, place_ko(d, "tree/three.ko", NULL));
	EXPECT_EQ(-ENOENT, index_find(idx, "three", NULL, 0, d, rel, sizeof(rel)));
	/* ... and one removed is still returned (as a path; opening it fails). */
	ASSERT_EQ(0, run("rm %s/tree/one.ko", d));
	EXPECT_EQ(0, index_find(idx, "one", NULL, 0, d, rel, sizeof(rel)));
	EXPECT_STREQ("tree/one.ko", rel);
	/* perf's cache is looked at each time. */
	EXPECT_EQ(-ENOENT, index_find(idx, "four", self->id, self->id_len, d, rel, sizeof(rel)));
	ASSERT_EQ(0, run("cd %s && mkdir -p .build-id/%.2s/%s && cp fixture.ko "
			 ".build-id/%.2s/%s/elf", d, hex, hex + 2, hex, hex + 2));
	EXPECT_EQ(0, index_find(idx, "four", self->id, self->id_len, d, rel, sizeof(rel)));
	snprintf(want, sizeof(want), ".build-id/%.2s/%s/elf", hex, hex + 2);
	EXPECT_STREQ(want, rel);
	/* ... after the paths given, which still win. */
	EXPECT_EQ(0, index_find(idx, "two", self->id, self->id_len, d, rel, sizeof(rel)));
	EXPECT_STREQ("tree/two.ko", rel);
	secmap_ko_index_free(idx);
	free(tree);
}

TEST_F(ko, index_bad_arguments)
{
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = "", .debug_root = "",
				      .buildid_cache = "");
	struct secmap_ko_index *idx = (struct secmap_ko_index *)1;
	char rel[PATH_MAX];

	EXPECT_EQ(-EINVAL, secmap_ko_index_new(&s, NULL));
	EXPECT_EQ(EINVAL, errno);
	/* A release is one component of a path: never a way out of the module trees. */
	s.release = "../../../tmp/x";
	EXPECT_EQ(-EINVAL, secmap_ko_index_new(&s, &idx));
	s.release = "..";
	EXPECT_EQ(-EINVAL, secmap_ko_index_new(&s, &idx));
	s.release = "";
	EXPECT_EQ(-EINVAL, secmap_ko_index_new(&s, &idx));
	s.release = "r";
	ASSERT_EQ(0, secmap_ko_index_new(&s, &idx));
	EXPECT_EQ(-EINVAL, index_find(NULL, "x", NULL, 0, "", rel, sizeof(rel)));
	EXPECT_EQ(-EINVAL, index_find(idx, NULL, NULL, 0, "", rel, sizeof(rel)));
	EXPECT_EQ(-EINVAL, index_find(idx, "", NULL, 0, "", rel, sizeof(rel)));
	EXPECT_EQ(-EINVAL, index_find(idx, "../x", NULL, 0, "", rel, sizeof(rel)));
	EXPECT_EQ(-EINVAL, index_find(idx, "x", NULL, 20, "", rel, sizeof(rel)));
	EXPECT_EQ(-EINVAL, secmap_ko_index_find(idx, "x", NULL, 0, NULL));
	EXPECT_EQ(-ENOENT, index_find(idx, "x", NULL, 0, "", rel, sizeof(rel)));
	secmap_ko_index_free(idx);
	secmap_ko_index_free(NULL);
	/* NULL options: the system's places, whatever they hold. */
	ASSERT_EQ(0, secmap_ko_index_new(NULL, &idx));
	EXPECT_EQ(-ENOENT, index_find(idx, "secmap_no_such_module_here", NULL, 0, "", rel,
				      sizeof(rel)));
	secmap_ko_index_free(idx);
}

/* --- secmap dump ------------------------------------------------------- */

/* A snapshot of one module "fixture" with @id, sections as the kernel lists them. */
static struct secmap_snapshot *fake_snapshot(const char *name, const uint8_t *id,
					     size_t id_len, int with_other)
{
	struct secmap_snapshot *snap = libsecmap_snapshot_new();
	char *buf = calloc(1, 4096);
	struct nlmsghdr *nlh;

	if (!snap || !buf)
		return NULL;
	nlh = msg_module(buf, name);
	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, id, id_len);
	msg_section_full(nlh, ".text", 0xffffffffc0564000ULL, 0, SECMAP_REGION_TEXT);
	msg_section_full(nlh, ".text.unlikely", 0xffffffffc0564100ULL, 0, SECMAP_REGION_TEXT);
	msg_section_full(nlh, ".data", 0xffffffffc0566000ULL, 0, SECMAP_REGION_DATA);
	msg_section_full(nlh, ".data..percpu", 0xffffe8ffffc01000ULL, 0, SECMAP_REGION_PERCPU);
	msg_section_full(nlh, ".init.text", 0xffffffffc0568000ULL,
			 SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED, -1);
	msg_section_full(nlh, ".gnu.linkonce.this_module", 0xffffffffc0567000ULL, 0,
			 SECMAP_REGION_DATA);
	if (libsecmap_parse_module_msg(nlh, snap))
		return NULL;
	if (with_other) {
		nlh = msg_module(memset(buf, 0, 4096), "nosuch_mod");
		msg_section_full(nlh, ".text", 0xffffffffc0a00000ULL, 0, SECMAP_REGION_TEXT);
		if (libsecmap_parse_module_msg(nlh, snap))
			return NULL;
	}
	free(buf);
	return snap;
}

/* dump_ko_check() of @ko's table, found as a named file, for @snap's first module. */
static int check_ids(const char *ko, struct secmap_snapshot *snap, bool force, char **msg)
{
	const char *paths[2] = { ko, NULL };
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .paths = paths, .modules_root = "",
				      .debug_root = "", .buildid_cache = "");
	SECMAP_OPTS(secmap_ko_tables_opts, opts, .search = &s);
	const struct secmap_ko_table *table;
	struct secmap_ko_tables *tables;
	int ret = -1;

	*msg = NULL;
	if (secmap_ko_tables_new(&opts, &tables))
		return ret;
	secmap_ko_tables_get(tables, secmap_snapshot_module(snap, 0), &table);
	if (table)
		ret = dump_ko_check(secmap_snapshot_module(snap, 0), table, force, msg);
	secmap_ko_tables_free(tables);
	return ret;
}

TEST_F(ko, cli_check_build_ids)
{
	uint8_t other[20];
	struct secmap_snapshot *snap;
	char *msg = (char *)1, want[1024], other_hex[41];

	/* Same build-id */
	snap = fake_snapshot("fixture", self->id, self->id_len, 0);
	ASSERT_NE(NULL, snap);
	EXPECT_EQ(SECMAP_EXIT_OK, check_ids(self->ko, snap, false, &msg));
	EXPECT_EQ(NULL, msg);
	secmap_snapshot_free(snap);
	/* None from the kernel: nothing to compare */
	snap = fake_snapshot("fixture", NULL, 0, 0);
	EXPECT_EQ(SECMAP_EXIT_OK, check_ids(self->ko, snap, false, &msg));
	EXPECT_EQ(NULL, msg);
	secmap_snapshot_free(snap);
	/* Different: refused, or with --force a warning */
	memset(other, 0xab, sizeof(other));
	to_hex(other, sizeof(other), other_hex);
	snap = fake_snapshot("fixture", other, sizeof(other), 0);
	EXPECT_EQ(SECMAP_EXIT_KO_MISMATCH, check_ids(self->ko, snap, false, &msg));
	snprintf(want, sizeof(want), "%s does not match the loaded module fixture (build-id %s "
		 "vs %s); use --force to use it anyway", self->ko, self->id_hex, other_hex);
	EXPECT_STREQ(want, msg);
	free(msg);
	EXPECT_EQ(SECMAP_EXIT_OK, check_ids(self->ko, snap, true, &msg));
	snprintf(want, sizeof(want), "%s does not match the loaded module fixture (build-id %s "
		 "vs %s); using it anyway (--force)", self->ko, self->id_hex, other_hex);
	EXPECT_STREQ(want, msg);
	free(msg);
	/* A shorter id that is a prefix is still another id. */
	secmap_snapshot_free(snap);
	snap = fake_snapshot("fixture", self->id, 16, 0);
	EXPECT_EQ(SECMAP_EXIT_KO_MISMATCH, check_ids(self->ko, snap, false, &msg));
	free(msg);
	secmap_snapshot_free(snap);
	EXPECT_EQ(6, SECMAP_EXIT_KO_MISMATCH);
	EXPECT_EQ(7, SECMAP_EXIT_NO_KO);
}

struct resolve_out {
	int ret;
	struct dump_ko *kos;
	char *diag;
	size_t diag_len;
};

static void resolve(struct secmap_snapshot *snap, const struct secmap_ko_search *s,
		    bool force, bool named, struct resolve_out *out)
{
	const struct secmap_module **mods = NULL;
	const char *missing = NULL;
	size_t nr = 0;
	FILE *f = open_memstream(&out->diag, &out->diag_len);

	dump_select(snap, NULL, 0, &mods, &nr, &missing);
	out->ret = dump_ko_resolve(mods, nr, s, force, named, NULL, f, &out->kos);
	fclose(f);
	free(mods);
}

static void resolve_free(struct resolve_out *out, size_t nr)
{
	dump_ko_free(out->kos, nr);
	free(out->diag);
	memset(out, 0, sizeof(*out));
}

TEST_F(ko, cli_resolve)
{
	const char *d = self->dir;
	const char *paths[2] = { NULL, NULL };
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = "", .debug_root = "",
				      .buildid_cache = "");
	struct secmap_snapshot *snap;
	struct resolve_out out = { 0 };
	SECMAP_OPTS(secmap_ko_section, ref);
	struct secmap_ko *ko;
	uint8_t other[20];
	char *p;

	ASSERT_EQ(0, run("mkdir %s/kos && cp %s %s/kos/", d, self->xz, d));
	paths[0] = p = path_in(d, "kos");
	s.paths = paths;
	ASSERT_EQ(0, secmap_ko_open(self->ko, &ko));
	ASSERT_EQ(0, secmap_ko_section(ko, ".data..percpu", &ref));

	/* All modules: the one without a .ko is a notice, not an error. */
	snap = fake_snapshot("fixture", self->id, self->id_len, 1);
	ASSERT_NE(NULL, snap);
	resolve(snap, &s, false, false, &out);
	ASSERT_EQ(SECMAP_EXIT_OK, out.ret);
	EXPECT_STREQ("Notice: no .ko found for 1 module: nosuch_mod\n", out.diag);
	ASSERT_NE(NULL, out.kos);
	ASSERT_NE(NULL, out.kos[0].path);
	EXPECT_EQ(0, strcmp(out.kos[0].path + strlen(out.kos[0].path) - strlen("kos/fixture.ko.xz"),
			    "kos/fixture.ko.xz"));
	EXPECT_EQ(NULL, out.kos[1].path);
	EXPECT_EQ(NULL, out.kos[1].secs);
	/* .data..percpu, 4th of the kernel's list, found by name */
	EXPECT_TRUE(out.kos[0].secs[3].found);
	EXPECT_EQ(ref.size, out.kos[0].secs[3].s.size);
	EXPECT_EQ(ref.offset, out.kos[0].secs[3].s.offset);
	/* .gnu.linkonce.this_module: the fixture is no real module */
	EXPECT_FALSE(out.kos[0].secs[5].found);
	resolve_free(&out, 2);

	/* Named: the missing one is an error. */
	resolve(snap, &s, false, true, &out);
	EXPECT_EQ(SECMAP_EXIT_NO_KO, out.ret);
	EXPECT_EQ(NULL, out.kos);
	resolve_free(&out, 2);
	secmap_snapshot_free(snap);

	/* Another build-id in the kernel: refused, or used with --force. */
	memset(other, 0x5a, sizeof(other));
	snap = fake_snapshot("fixture", other, sizeof(other), 0);
	resolve(snap, &s, false, false, &out);
	EXPECT_EQ(SECMAP_EXIT_KO_MISMATCH, out.ret);
	EXPECT_EQ(NULL, out.kos);
	resolve_free(&out, 1);
	resolve(snap, &s, true, false, &out);
	EXPECT_EQ(SECMAP_EXIT_OK, out.ret);
	EXPECT_EQ(0, strncmp(out.diag, "Warning: ", 9));
	EXPECT_NE(NULL, strstr(out.diag, "does not match the loaded module fixture"));
	ASSERT_NE(NULL, out.kos);
	EXPECT_NE(NULL, out.kos[0].path);
	resolve_free(&out, 1);
	secmap_snapshot_free(snap);

	/* A file found that does not open is an error naming it. */
	ASSERT_EQ(0, run("printf 'garbage' > %s/kos/broken.ko", d));
	snap = fake_snapshot("broken", NULL, 0, 0);
	resolve(snap, &s, false, false, &out);
	EXPECT_EQ(SECMAP_EXIT_FAILURE, out.ret);
	resolve_free(&out, 1);
	secmap_snapshot_free(snap);

	secmap_ko_close(ko);
	free(p);
}

/* The same module resolved with the cache at @cache: one module, fixture. */
static void resolve_cached(struct secmap_snapshot *snap, const struct secmap_ko_search *s,
			   const char *cache, struct resolve_out *out)
{
	const struct secmap_module **mods = NULL;
	const char *missing = NULL;
	size_t nr = 0;
	FILE *f = open_memstream(&out->diag, &out->diag_len);

	dump_select(snap, NULL, 0, &mods, &nr, &missing);
	out->ret = dump_ko_resolve(mods, nr, s, false, false, cache, f, &out->kos);
	fclose(f);
	free(mods);
}

/* Every section as the .ko says it, with the right path: what a hit must give. */
static bool same_as_ko(const struct dump_ko *got, const char *ko_path, const char *want_path,
		       const struct secmap_module *mod)
{
	struct secmap_ko *ko;
	size_t i;
	bool same;

	if (secmap_ko_open(ko_path, &ko))
		return false;
	same = got->path && !strcmp(got->path, want_path);
	for (i = 0; same && i < secmap_module_section_count(mod); i++) {
		SECMAP_OPTS(secmap_ko_section, ref);
		bool found = !secmap_ko_section(ko, secmap_section_name(
						secmap_module_section(mod, i)), &ref);

		same = got->secs[i].found == found &&
		       (!found || (got->secs[i].s.size == ref.size &&
				   got->secs[i].s.offset == ref.offset &&
				   got->secs[i].s.flags == ref.flags &&
				   got->secs[i].s.nr_symbols == ref.nr_symbols));
	}
	secmap_ko_close(ko);
	return same;
}

/* same_as_ko() for the cache's own rows. */
static bool same_rows_as_ko(const struct libsecmap_ko_rows *got, const char *ko_path,
			    const char *want_path, const struct secmap_module *mod)
{
	size_t i, n = secmap_module_section_count(mod);
	struct dump_ko as_dump = { .path = got->path };
	bool same;

	as_dump.secs = calloc(n ? n : 1, sizeof(*as_dump.secs));
	if (!as_dump.secs)
		return false;
	for (i = 0; i < n; i++) {
		as_dump.secs[i].found = got->rows[i].found;
		as_dump.secs[i].s = got->rows[i].s;
	}
	same = same_as_ko(&as_dump, ko_path, want_path, mod);
	free(as_dump.secs);
	return same;
}

/*
 * Ways to spoil a .ko cache entry (lib/ko/ko_cache.c's layout: the header's
 * version at byte 8, section count at 12, reserved word at 28, build-id
 * at 32, the first row's "found" word at 124); each "%s" is the entry.
 */
static const char *const cache_spoilers[] = {
	"truncate -s 40 %s",						/* truncated */
	"printf 'not a table' | dd of=%s conv=notrunc status=none",	/* corrupt */
	"printf '\\003' | dd of=%s bs=1 seek=8 conv=notrunc status=none",	/* another version */
	"printf '\\377' | dd of=%s bs=1 seek=12 conv=notrunc status=none",	/* another count */
	"printf '\\001' | dd of=%s bs=1 seek=28 conv=notrunc status=none",	/* reserved set */
	"printf '\\377' | dd of=%s bs=1 seek=32 conv=notrunc status=none",	/* another build's */
	"printf '\\002' | dd of=%s bs=1 seek=124 conv=notrunc status=none",	/* a bad flag */
	"sed -i 's/\\.text\\.unlikely/.text.unlikelz/' %s",		/* a section missing */
	"printf x >> %s",						/* trailing bytes */
	": > %s",							/* empty */
};

TEST_F(ko, cache_filled_then_used_without_the_file)
{
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = self->dir,
				      .debug_root = "", .buildid_cache = "");
	struct resolve_out out = { 0 };
	struct secmap_snapshot *snap;
	char *cache = path_in(self->dir, "cache/secmap/ko"), *entry, *ko_path;

	ASSERT_EQ(0, run("mkdir -p %s/r/kernel && cp %s %s/r/kernel/ && "
			 "echo kernel/fixture.ko.xz: > %s/r/modules.dep",
			 self->dir, self->xz, self->dir, self->dir));
	ko_path = path_in(self->dir, "r/kernel/fixture.ko.xz");
	ASSERT_EQ(0, asprintf(&entry, "%s/%s.kotab", cache, self->id_hex) < 0);
	snap = fake_snapshot("fixture", self->id, self->id_len, 0);
	ASSERT_NE(NULL, snap);

	/* A miss: read from the file, and the entry written (its directories too). */
	resolve_cached(snap, &s, cache, &out);
	ASSERT_EQ(SECMAP_EXIT_OK, out.ret);
	EXPECT_TRUE(same_as_ko(&out.kos[0], self->ko, ko_path, secmap_snapshot_module(snap, 0)));
	EXPECT_EQ(0, access(entry, R_OK));
	resolve_free(&out, 1);

	/* A hit: the .ko is gone, and the answer is the same. */
	ASSERT_EQ(0, run("rm %s", ko_path));
	resolve_cached(snap, &s, cache, &out);
	ASSERT_EQ(SECMAP_EXIT_OK, out.ret);
	EXPECT_TRUE(same_as_ko(&out.kos[0], self->ko, ko_path, secmap_snapshot_module(snap, 0)));
	resolve_free(&out, 1);

	/* Without the cache (--no-cache): nothing found. */
	resolve_cached(snap, &s, NULL, &out);
	EXPECT_EQ(SECMAP_EXIT_OK, out.ret);
	EXPECT_EQ(NULL, out.kos[0].path);
	resolve_free(&out, 1);

	/* --ko-path named files: shown as found there, not as the cache has it. */
	{
		const char *paths[2] = { self->ko, NULL };
		struct secmap_ko_search named = s;

		named.paths = paths;
		resolve_cached(snap, &named, cache, &out);
		ASSERT_EQ(SECMAP_EXIT_OK, out.ret);
		EXPECT_STREQ(self->ko, out.kos[0].path);
		resolve_free(&out, 1);
	}
	secmap_snapshot_free(snap);
	free(ko_path);
	free(entry);
	free(cache);
}

/*
 * Entries that must not be used: each is a miss, read from the file
 * instead, and replaced by a good entry.
 */
TEST_F(ko, cache_bad_entries_ignored_and_rebuilt)
{
	const char *paths[2] = { NULL, NULL };
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = "", .debug_root = "",
				      .buildid_cache = "");
	struct resolve_out out = { 0 };
	struct secmap_snapshot *snap;
	char *cache = path_in(self->dir, "cache"), *entry, *good, *now, *kos;
	size_t good_len, now_len, i;

	kos = path_in(self->dir, "kos");
	ASSERT_EQ(0, run("mkdir %s && cp %s %s/", kos, self->gz, kos));
	paths[0] = kos;
	s.paths = paths;
	ASSERT_EQ(0, asprintf(&entry, "%s/%s.kotab", cache, self->id_hex) < 0);
	snap = fake_snapshot("fixture", self->id, self->id_len, 0);
	ASSERT_NE(NULL, snap);
	/* --ko-path is not read from the cache, but it fills it. */
	resolve_cached(snap, &s, cache, &out);
	ASSERT_EQ(SECMAP_EXIT_OK, out.ret);
	resolve_free(&out, 1);
	ASSERT_EQ(0, read_whole(entry, (uint8_t **)&good, &good_len));

	for (i = 0; i < sizeof(cache_spoilers) / sizeof(cache_spoilers[0]); i++) {
		struct libsecmap_ko_rows got;

		ASSERT_EQ(0, run(cache_spoilers[i], entry));
		ASSERT_EQ(0, read_whole(entry, (uint8_t **)&now, &now_len));
		EXPECT_TRUE(now_len != good_len || memcmp(now, good, now_len))
			TH_LOG("spoiler %zu changed nothing", i);
		free(now);
		EXPECT_EQ(-ENOENT, libsecmap_ko_cache_load(cache, secmap_snapshot_module(snap, 0),
							   &got))
			TH_LOG("spoiled entry %zu was used", i);
		/* dump reads the file and writes the entry anew. */
		resolve_cached(snap, &s, cache, &out);
		EXPECT_EQ(SECMAP_EXIT_OK, out.ret);
		resolve_free(&out, 1);
		ASSERT_EQ(0, read_whole(entry, (uint8_t **)&now, &now_len));
		EXPECT_TRUE(now_len == good_len && !memcmp(now, good, now_len))
			TH_LOG("entry not rebuilt after spoiler %zu", i);
		free(now);
	}
	/* A file without a build-id is not stored under the kernel's. */
	{
		char *stripped = path_in(self->dir, "stripped"), *other_cache;
		const char *spaths[2] = { stripped, NULL };
		struct secmap_ko_search ss = s;

		ASSERT_EQ(0, asprintf(&other_cache, "%s/other-cache", self->dir) < 0);
		ASSERT_EQ(0, run("mkdir %s && objcopy --remove-section .note.gnu.build-id %s "
				 "%s/fixture.ko", stripped, self->ko, stripped));
		ss.paths = spaths;
		resolve_cached(snap, &ss, other_cache, &out);
		EXPECT_EQ(SECMAP_EXIT_OK, out.ret);
		EXPECT_NE(NULL, out.kos[0].path);
		resolve_free(&out, 1);
		EXPECT_NE(0, run("test -e %s/%s.kotab", other_cache, self->id_hex));
		free(other_cache);
		free(stripped);
	}
	/* A module without a build-id has no key: nothing stored. */
	{
		struct secmap_snapshot *anon = fake_snapshot("fixture", NULL, 0, 0);

		EXPECT_EQ(-EINVAL, libsecmap_ko_cache_store(cache, secmap_snapshot_module(anon, 0),
							    &(struct libsecmap_ko_rows){ 0 }));
		secmap_snapshot_free(anon);
	}
	secmap_snapshot_free(snap);
	free(good);
	free(entry);
	free(cache);
	free(kos);
}

/*
 * Writers racing each other and a reader: a reader sees a whole entry or
 * none, never a part (no load returns an answer that differs).
 */
TEST_F(ko, cache_concurrent_writers)
{
	const char *paths[2] = { NULL, NULL };
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = "", .debug_root = "",
				      .buildid_cache = "");
	struct resolve_out out = { 0 };
	struct secmap_snapshot *snap;
	char *cache = path_in(self->dir, "cache"), *kos = path_in(self->dir, "kos");
	struct libsecmap_ko_rows rows;
	pid_t writers[3];
	int i, hits = 0, status, bad = 0;

	ASSERT_EQ(0, run("mkdir %s && cp %s %s/", kos, self->ko, kos));
	paths[0] = kos;
	s.paths = paths;
	snap = fake_snapshot("fixture", self->id, self->id_len, 0);
	ASSERT_NE(NULL, snap);
	resolve_cached(snap, &s, cache, &out);
	ASSERT_EQ(SECMAP_EXIT_OK, out.ret);
	ASSERT_EQ(0, libsecmap_ko_cache_load(cache, secmap_snapshot_module(snap, 0), &rows));

	for (i = 0; i < 3; i++) {
		writers[i] = fork();
		ASSERT_LE(0, writers[i]);
		if (!writers[i]) {
			int n;

			for (n = 0; n < 300; n++)
				if (libsecmap_ko_cache_store(cache, secmap_snapshot_module(snap, 0),
							     &rows))
					_exit(1);
			_exit(0);
		}
	}
	for (i = 0; i < 2000; i++) {
		struct libsecmap_ko_rows got;
		int err = libsecmap_ko_cache_load(cache, secmap_snapshot_module(snap, 0), &got);

		if (err) {
			bad += err != -ENOENT;
			continue;
		}
		hits++;
		bad += !same_rows_as_ko(&got, self->ko, out.kos[0].path,
					secmap_snapshot_module(snap, 0));
		free(got.path);
		free(got.rows);
	}
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(writers[i], waitpid(writers[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	EXPECT_EQ(0, bad);
	/* rename() replaces whole files: every load found one. */
	EXPECT_EQ(2000, hits);
	/* No temporary file left behind. */
	EXPECT_EQ(0, run("test $(ls -A %s | wc -l) -eq 1", cache));
	resolve_free(&out, 1);
	free(rows.path);
	free(rows.rows);
	secmap_snapshot_free(snap);
	free(cache);
	free(kos);
}

/*
 * What secmap record takes for @mod: the library's section tables over @s
 * with the cache that $XDG_CACHE_HOME names, as record makes them: true if
 * it has a table and every section in it is as the .ko at @ko_path says
 * (those the file lacks absent). *@cached: the table came from the cache;
 * *@opened: .ko files opened.
 */
static bool record_same_as_ko(const struct secmap_module *mod, const struct secmap_ko_search *s,
			      const char *ko_path, size_t *cached, size_t *opened)
{
	SECMAP_OPTS(secmap_ko_tables_opts, opts, .search = s);
	SECMAP_OPTS(secmap_ko_tables_stats, stats);
	const struct secmap_ko_table *t, *again;
	struct secmap_ko_tables *tables;
	struct secmap_ko *ko = NULL;
	char *cache_dir = NULL;
	size_t i;
	bool same;

	*cached = *opened = 0;
	secmap_ko_cache_dir(&cache_dir);
	opts.cache_dir = cache_dir;
	if (secmap_ko_tables_new(&opts, &tables)) {
		free(cache_dir);
		return false;
	}
	free(cache_dir);
	same = !secmap_ko_tables_get(tables, mod, &t) && t;
	/* Asked again: the table kept, nothing read again. */
	same = same && !secmap_ko_tables_get(tables, mod, &again) && again == t;
	if (secmap_ko_tables_stats(tables, &stats) || stats.builds != 1)
		same = false;
	*cached = stats.cached;
	*opened = stats.opened;
	if (same && (secmap_ko_table_cached(t) != (stats.cached == 1) ||
		     secmap_ko_open(ko_path, &ko)))
		same = false;
	for (i = 0; same && i < secmap_module_section_count(mod); i++) {
		const char *name = secmap_section_name(secmap_module_section(mod, i));
		SECMAP_OPTS(secmap_ko_section, got);
		SECMAP_OPTS(secmap_ko_section, ref);

		if (secmap_ko_section(ko, name, &ref))
			same = secmap_ko_table_section(t, name, &got) == -ENOENT;
		else
			same = !secmap_ko_table_section(t, name, &got) && got.size == ref.size &&
			       got.offset == ref.offset && got.flags == ref.flags &&
			       got.nr_symbols == ref.nr_symbols;
	}
	secmap_ko_close(ko);
	secmap_ko_tables_free(tables);
	return same;
}

/* What secmap_ko_tables_opts.looked_up saw. */
struct looked_up_log {
	size_t calls;
	const struct secmap_ko_table *table;
	int err;
};

static void log_looked_up(void *ctx, const struct secmap_module *mod,
			  const struct secmap_ko_table *table, int err)
{
	struct looked_up_log *log = ctx;

	(void)mod;
	log->calls++;
	log->table = table;
	log->err = err;
}

/* The index of section @name in @ref (@nr of them), or @nr. */
static size_t ref_index(const struct ref_sec *ref, size_t nr, const char *name)
{
	size_t j = 1;

	while (j < nr && strcmp(ref[j].name, name))
		j++;
	return j;
}

/* Each of @mod's sections in @table as libelf reads the file at @path: 0 differences. */
static size_t table_differs(const struct secmap_ko_table *table, const struct secmap_module *mod,
			    const char *path)
{
	size_t i, j, nr, bad = 0, found = 0;
	struct ref_sec *ref;

	if (ref_sections(path, &ref, &nr))
		return 1;
	for (i = 0; i < secmap_module_section_count(mod); i++) {
		const char *name = secmap_section_name(secmap_module_section(mod, i));
		SECMAP_OPTS(secmap_ko_section, got);
		int err = secmap_ko_table_section(table, name, &got);

		j = ref_index(ref, nr, name);
		if (j == nr) {
			bad += err != -ENOENT;
			continue;
		}
		found++;
		bad += err || got.size != ref[j].shdr.sh_size ||
		       got.offset != ref[j].shdr.sh_offset || got.flags != ref[j].shdr.sh_flags ||
		       got.nr_symbols != ref[j].nr_symbols;
	}
	free(ref);
	return bad + !found;
}

/* A recorder's SEC_MAP records, each checked against libelf's reading of @ko. */
struct map_check {
	struct ref_sec *ref;
	size_t nr_ref;
	size_t maps, with_ko, bad;
};

static int check_map(void *ctx, const struct secmap_record *rec)
{
	struct map_check *c = ctx;
	size_t j;

	if (rec->type != SECMAP_REC_SEC_MAP)
		return 0;
	c->maps++;
	j = ref_index(c->ref, c->nr_ref, rec->section);
	/* Only fixture has a file. */
	if (j == c->nr_ref || strcmp(rec->module, "fixture")) {
		c->bad += rec->len || rec->pgoff || !(rec->flags & SECMAP_MAP_F_NO_KO);
		return 0;
	}
	c->with_ko++;
	c->bad += rec->len != c->ref[j].shdr.sh_size || rec->pgoff != c->ref[j].shdr.sh_offset ||
		  (rec->flags & SECMAP_MAP_F_NO_KO);
	return 0;
}

/*
 * The library's section tables: each answer of secmap_ko_tables_get()
 * (found, not found, another build, unreadable), the values against
 * libelf, one lookup per build, the cache shared by a second handle, and
 * the sized structs.
 */
TEST_F(ko, tables_answers)
{
	char *kos = path_in(self->dir, "kos"), *cache = path_in(self->dir, "tables-cache");
	const char *paths[2] = { kos, NULL };
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .paths = paths, .modules_root = "",
				      .debug_root = "", .buildid_cache = "");
	SECMAP_OPTS(secmap_ko_search, unnamed, .release = "r", .modules_root = "",
				      .debug_root = "", .buildid_cache = "");
	struct looked_up_log lookups = { 0 };
	SECMAP_OPTS(secmap_ko_tables_opts, opts, .search = &s, .cache_dir = cache,
		    .looked_up = log_looked_up, .ctx = &lookups);
	SECMAP_OPTS(secmap_ko_tables_stats, stats);
	SECMAP_OPTS(secmap_recorder_opts, ro, .record = check_map);
	struct { struct secmap_ko_tables_opts o; uint64_t more; } longer = { opts, 0 };
	struct map_check maps = { 0 };
	struct secmap_recorder *rec;
	struct { struct secmap_ko_tables_stats st; uint64_t more; } long_stats = { { 0 }, ~0ULL };
	const struct secmap_ko_table *t, *again;
	struct secmap_snapshot *snap, *other_snap, *broken;
	struct secmap_ko_tables *tables, *warm;
	const struct secmap_module *mod;
	SECMAP_OPTS(secmap_ko_section, sec);
	const uint8_t *id;
	uint8_t other[20];
	char *dir;

	ASSERT_EQ(0, run("mkdir %s && cp %s %s/ && printf garbage > %s/broken.ko", kos, self->zst,
			 kos, kos));
	snap = fake_snapshot("fixture", self->id, self->id_len, 1);
	ASSERT_NE(NULL, snap);
	mod = secmap_snapshot_module(snap, 0);

	/* Options: too short, unknown bytes set, no search. */
	opts.sz = sizeof(size_t);
	EXPECT_EQ(-EINVAL, secmap_ko_tables_new(&opts, &tables));
	opts.sz = sizeof(opts);
	longer.o.sz = sizeof(longer);
	longer.more = 1;
	EXPECT_EQ(-E2BIG, secmap_ko_tables_new(&longer.o, &tables));
	EXPECT_EQ(NULL, tables);
	longer.more = 0;
	ASSERT_EQ(0, secmap_ko_tables_new(&longer.o, &tables));
	secmap_ko_tables_free(tables);
	opts.search = NULL;
	EXPECT_EQ(-EINVAL, secmap_ko_tables_new(&opts, &tables));
	opts.search = &s;
	ASSERT_EQ(0, secmap_ko_tables_new(&opts, &tables));
	ro.ko_tables = tables;

	/* Found: the file's values, its build-id; asked again, nothing read again. */
	ASSERT_EQ(0, secmap_ko_tables_get(tables, mod, &t));
	ASSERT_NE(NULL, t);
	EXPECT_EQ(0, table_differs(t, mod, self->ko));
	EXPECT_NE(NULL, strstr(secmap_ko_table_path(t), "kos/fixture.ko.zst"));
	EXPECT_EQ(self->id_len, secmap_ko_table_build_id(t, &id));
	EXPECT_EQ(0, memcmp(id, self->id, self->id_len));
	EXPECT_FALSE(secmap_ko_table_cached(t));
	EXPECT_EQ(-ENOENT, secmap_ko_table_section(t, ".gnu.linkonce.this_module", &sec));
	sec.sz = offsetof(struct secmap_ko_section, nr_symbols);
	EXPECT_EQ(-EINVAL, secmap_ko_table_section(t, ".text", &sec));
	ASSERT_EQ(0, secmap_ko_tables_get(tables, mod, &again));
	EXPECT_EQ(t, again);
	EXPECT_EQ(1, lookups.calls);
	EXPECT_EQ(t, lookups.table);

	/* A recorder given the tables: each map's length and offset are the file's. */
	ro.ctx = &maps;
	ASSERT_EQ(0, ref_sections(self->ko, &maps.ref, &maps.nr_ref));
	ASSERT_EQ(0, secmap_recorder_new(&ro, &rec));
	ASSERT_EQ(0, secmap_recorder_snapshot(rec, snap, SECMAP_RESYNC_START, SECMAP_SOURCE_SYSFS,
					      0));
	/* fixture's six and nosuch_mod's .text; five of fixture's in the file */
	EXPECT_EQ(7, maps.maps);
	EXPECT_EQ(5, maps.with_ko);
	EXPECT_EQ(0, maps.bad);
	secmap_recorder_free(rec);
	free(maps.ref);

	/* Not found: no table, the same answer twice, one call. */
	EXPECT_EQ(-ENOENT, secmap_ko_tables_get(tables, secmap_snapshot_module(snap, 1), &t));
	EXPECT_EQ(NULL, t);
	EXPECT_EQ(-ENOENT, secmap_ko_tables_get(tables, secmap_snapshot_module(snap, 1), &t));
	EXPECT_EQ(2, lookups.calls);
	EXPECT_EQ(NULL, lookups.table);
	EXPECT_EQ(-ENOENT, lookups.err);

	/* Another build in the kernel: -ESTALE, with the file's table, not stored. */
	memset(other, 0x5a, sizeof(other));
	other_snap = fake_snapshot("fixture", other, sizeof(other), 0);
	ASSERT_NE(NULL, other_snap);
	EXPECT_EQ(-ESTALE, secmap_ko_tables_get(tables, secmap_snapshot_module(other_snap, 0), &t));
	ASSERT_NE(NULL, t);
	EXPECT_EQ(0, table_differs(t, secmap_snapshot_module(other_snap, 0), self->ko));
	EXPECT_EQ(self->id_len, secmap_ko_table_build_id(t, &id));
	EXPECT_EQ(-ESTALE, lookups.err);
	EXPECT_NE(0, run("test -e %s/5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a.kotab", cache));

	/* A file found that cannot be read: its error, its path, no sections. */
	broken = fake_snapshot("broken", NULL, 0, 0);
	ASSERT_NE(NULL, broken);
	EXPECT_EQ(-EINVAL, secmap_ko_tables_get(tables, secmap_snapshot_module(broken, 0), &t));
	ASSERT_NE(NULL, t);
	EXPECT_NE(NULL, strstr(secmap_ko_table_path(t), "kos/broken.ko"));
	EXPECT_EQ(-ENOENT, secmap_ko_table_section(t, ".text", &sec));

	/* Four builds, one file each for three, one entry stored; the caller's size kept. */
	ASSERT_EQ(0, secmap_ko_tables_stats(tables, &stats));
	EXPECT_EQ(4, stats.builds);
	EXPECT_EQ(0, stats.cached);
	EXPECT_EQ(3, stats.opened);
	EXPECT_EQ(1, stats.stored);
	long_stats.st.sz = sizeof(long_stats);
	ASSERT_EQ(0, secmap_ko_tables_stats(tables, &long_stats.st));
	EXPECT_EQ(sizeof(long_stats), long_stats.st.sz);
	EXPECT_EQ(0, long_stats.more);
	EXPECT_EQ(4, long_stats.st.builds);
	secmap_ko_tables_free(tables);

	/* A second handle, no file named: the cache answers, no file opened. */
	opts.search = &unnamed;
	ASSERT_EQ(0, secmap_ko_tables_new(&opts, &warm));
	ASSERT_EQ(0, secmap_ko_tables_get(warm, mod, &t));
	EXPECT_TRUE(secmap_ko_table_cached(t));
	EXPECT_EQ(0, table_differs(t, mod, self->ko));
	EXPECT_NE(NULL, strstr(secmap_ko_table_path(t), "kos/fixture.ko.zst"));
	ASSERT_EQ(0, secmap_ko_tables_stats(warm, &stats));
	EXPECT_EQ(1, stats.cached);
	EXPECT_EQ(0, stats.opened);
	secmap_ko_tables_free(warm);

	/* The shared directory: $XDG_CACHE_HOME if absolute, else $HOME's .cache. */
	ASSERT_EQ(0, setenv("XDG_CACHE_HOME", "/x", 1));
	ASSERT_EQ(0, secmap_ko_cache_dir(&dir));
	EXPECT_STREQ("/x/secmap/ko", dir);
	free(dir);
	ASSERT_EQ(0, setenv("XDG_CACHE_HOME", "relative", 1));
	ASSERT_EQ(0, setenv("HOME", "/h", 1));
	ASSERT_EQ(0, secmap_ko_cache_dir(&dir));
	EXPECT_STREQ("/h/.cache/secmap/ko", dir);
	free(dir);
	ASSERT_EQ(0, unsetenv("HOME"));
	EXPECT_EQ(-ENOENT, secmap_ko_cache_dir(&dir));
	EXPECT_EQ(NULL, dir);

	secmap_snapshot_free(broken);
	secmap_snapshot_free(other_snap);
	secmap_snapshot_free(snap);
	free(cache);
	free(kos);
}

/* @path's bytes are @want's (@want_len of them). */
static bool file_is(const char *path, const char *want, size_t want_len)
{
	uint8_t *now;
	size_t len;
	bool same;

	if (read_whole(path, &now, &len))
		return false;
	same = len == want_len && !memcmp(now, want, len);
	free(now);
	return same;
}

/*
 * secmap record and secmap dump share one .ko cache: what either reads
 * from a .ko, the other takes from the cache without opening it; record
 * writes the entry dump writes, byte for byte; entries that fail the
 * cache's checks are not trusted but read again and rewritten.
 */
TEST_F(ko, record_shares_the_cache)
{
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = self->dir,
				      .debug_root = "", .buildid_cache = "");
	char *xdg = path_in(self->dir, "xdg"), *cache = path_in(self->dir, "xdg/secmap/ko");
	char *dump_cache = path_in(self->dir, "dump-cache"), *entry, *dump_entry, *ko_path;
	const char *paths[2] = { path_in(self->dir, "named"), NULL };
	struct secmap_snapshot *snap, *other_snap, *anon;
	struct secmap_ko_search named = s;
	struct resolve_out out = { 0 };
	size_t cached, opened, good_len, i;
	uint8_t other[20];
	char *good;

	ASSERT_EQ(0, run("mkdir -p %s/r/kernel && cp %s %s/r/kernel/ && "
			 "echo kernel/fixture.ko.xz: > %s/r/modules.dep",
			 self->dir, self->xz, self->dir, self->dir));
	ko_path = path_in(self->dir, "r/kernel/fixture.ko.xz");
	ASSERT_EQ(0, asprintf(&entry, "%s/%s.kotab", cache, self->id_hex) < 0);
	ASSERT_EQ(0, asprintf(&dump_entry, "%s/%s.kotab", dump_cache, self->id_hex) < 0);
	ASSERT_EQ(0, setenv("XDG_CACHE_HOME", xdg, 1));
	snap = fake_snapshot("fixture", self->id, self->id_len, 0);
	ASSERT_NE(NULL, snap);

	/* Cold: the .ko read, and the entry dump would write, written. */
	EXPECT_TRUE(record_same_as_ko(secmap_snapshot_module(snap, 0), &s, self->ko, &cached,
				      &opened));
	EXPECT_EQ(0, cached);
	EXPECT_EQ(1, opened);
	resolve_cached(snap, &s, dump_cache, &out);
	ASSERT_EQ(SECMAP_EXIT_OK, out.ret);
	resolve_free(&out, 1);
	ASSERT_EQ(0, read_whole(dump_entry, (uint8_t **)&good, &good_len));
	EXPECT_TRUE(file_is(entry, good, good_len)) TH_LOG("record's entry is not dump's");

	/* Warm: the .ko is gone; record takes the cache, and so does dump. */
	ASSERT_EQ(0, run("mv %s %s.away", ko_path, ko_path));
	EXPECT_TRUE(record_same_as_ko(secmap_snapshot_module(snap, 0), &s, self->ko, &cached,
				      &opened));
	EXPECT_EQ(1, cached);
	EXPECT_EQ(0, opened);
	resolve_cached(snap, &s, cache, &out);
	ASSERT_EQ(SECMAP_EXIT_OK, out.ret);
	EXPECT_TRUE(same_as_ko(&out.kos[0], self->ko, ko_path, secmap_snapshot_module(snap, 0)));
	resolve_free(&out, 1);

	/* An entry dump wrote: record takes it as its own. */
	ASSERT_EQ(0, run("rm -r %s && mkdir -p %s && cp %s %s/", cache, cache, dump_entry, cache));
	EXPECT_TRUE(record_same_as_ko(secmap_snapshot_module(snap, 0), &s, self->ko, &cached,
				      &opened));
	EXPECT_EQ(1, cached);
	EXPECT_EQ(0, opened);

	/*
	 * Entries that fail the cache's checks: never used (no .ko, no
	 * table), and with the .ko back, read from it and written anew.
	 */
	for (i = 0; i < sizeof(cache_spoilers) / sizeof(cache_spoilers[0]); i++) {
		ASSERT_EQ(0, run(cache_spoilers[i], entry));
		EXPECT_FALSE(file_is(entry, good, good_len)) TH_LOG("spoiler %zu changed nothing", i);
		EXPECT_FALSE(record_same_as_ko(secmap_snapshot_module(snap, 0), &s, self->ko,
					       &cached, &opened)) TH_LOG("spoiled entry %zu used", i);
		EXPECT_EQ(0, cached);
		ASSERT_EQ(0, run("mv %s.away %s", ko_path, ko_path));
		EXPECT_TRUE(record_same_as_ko(secmap_snapshot_module(snap, 0), &s, self->ko,
					      &cached, &opened)) TH_LOG("spoiler %zu", i);
		EXPECT_EQ(0, cached);
		EXPECT_EQ(1, opened);
		EXPECT_TRUE(file_is(entry, good, good_len)) TH_LOG("not rewritten after spoiler %zu", i);
		ASSERT_EQ(0, run("mv %s %s.away", ko_path, ko_path));
	}
	ASSERT_EQ(0, run("mv %s.away %s", ko_path, ko_path));

	/* --ko-path: the files named are read, not the cache, which they still fill. */
	named.paths = paths;
	ASSERT_EQ(0, run("mkdir %s && cp %s %s/", paths[0], self->gz, paths[0]));
	EXPECT_TRUE(record_same_as_ko(secmap_snapshot_module(snap, 0), &named, self->ko, &cached,
				      &opened));
	EXPECT_EQ(0, cached);
	EXPECT_EQ(1, opened);
	ASSERT_EQ(0, unlink(entry));
	EXPECT_TRUE(record_same_as_ko(secmap_snapshot_module(snap, 0), &named, self->ko, &cached,
				      &opened));
	EXPECT_EQ(0, access(entry, R_OK));

	/* Another build in the kernel: the .ko not used, nothing cached under either id. */
	memset(other, 0x5a, sizeof(other));
	other_snap = fake_snapshot("fixture", other, sizeof(other), 0);
	ASSERT_NE(NULL, other_snap);
	ASSERT_EQ(0, run("rm -r %s", cache));
	EXPECT_FALSE(record_same_as_ko(secmap_snapshot_module(other_snap, 0), &s, self->ko,
				       &cached, &opened));
	EXPECT_EQ(1, opened);
	EXPECT_NE(0, run("test -e %s", cache));
	/* A build-id's entry copied under another's name: not used. */
	ASSERT_EQ(0, run("mkdir -p %s && cp %s %s/5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a.kotab",
			 cache, dump_entry, cache));
	ASSERT_EQ(0, run("mv %s %s.away", ko_path, ko_path));
	EXPECT_FALSE(record_same_as_ko(secmap_snapshot_module(other_snap, 0), &s, self->ko,
				       &cached, &opened));
	EXPECT_EQ(0, cached);
	ASSERT_EQ(0, run("mv %s.away %s", ko_path, ko_path));
	secmap_snapshot_free(other_snap);

	/* No build-id in the kernel: the .ko used, no key to cache it under. */
	anon = fake_snapshot("fixture", NULL, 0, 0);
	ASSERT_NE(NULL, anon);
	ASSERT_EQ(0, run("rm -r %s", cache));
	EXPECT_TRUE(record_same_as_ko(secmap_snapshot_module(anon, 0), &s, self->ko, &cached,
				      &opened));
	EXPECT_EQ(1, opened);
	EXPECT_NE(0, run("test -e %s", cache));
	secmap_snapshot_free(anon);

	/* No $XDG_CACHE_HOME nor $HOME: no cache, the .ko read every time. */
	ASSERT_EQ(0, unsetenv("XDG_CACHE_HOME"));
	ASSERT_EQ(0, unsetenv("HOME"));
	EXPECT_TRUE(record_same_as_ko(secmap_snapshot_module(snap, 0), &s, self->ko, &cached,
				      &opened));
	EXPECT_EQ(1, opened);
	EXPECT_NE(0, run("test -e %s", cache));

	secmap_snapshot_free(snap);
	free((char *)paths[0]);
	free(good);
	free(ko_path);
	free(dump_entry);
	free(entry);
	free(dump_cache);
	free(cache);
	free(xdg);
}

TEST_F(ko, cli_searched_list)
{
	const char *paths[3] = { "/a", "/b/c", NULL };
	SECMAP_OPTS(secmap_ko_search, s, .release = "6.1.0-9", .paths = paths,
				      .modules_root = "/lib/modules", .debug_root = "/usr/lib/debug",
				      .buildid_cache = "/root/.debug");
	uint8_t id[4] = { 0x3f, 0x2a, 0x00, 0xff };
	struct secmap_snapshot *snap = fake_snapshot("x", id, sizeof(id), 0);
	char *text;

	ASSERT_NE(NULL, snap);
	text = dump_ko_searched(&s, secmap_snapshot_module(snap, 0));
	EXPECT_STREQ("/a, /b/c, /root/.debug/.build-id/3f/2a00ff, "
		     "/usr/lib/debug/.build-id/3f/2a00ff.debug, /usr/lib/debug/lib/modules/6.1.0-9, "
		     "/lib/modules/6.1.0-9/modules.dep", text);
	free(text);
	secmap_snapshot_free(snap);
	snap = fake_snapshot("x", NULL, 0, 0);
	s.paths = NULL;
	s.buildid_cache = "";
	text = dump_ko_searched(&s, secmap_snapshot_module(snap, 0));
	EXPECT_STREQ("/usr/lib/debug/lib/modules/6.1.0-9, /lib/modules/6.1.0-9/modules.dep", text);
	free(text);
	secmap_snapshot_free(snap);
}

TEST_F(ko, cli_json_and_table)
{
	const char *paths[2] = { NULL, NULL };
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = "", .debug_root = "",
				      .buildid_cache = "");
	const struct secmap_module **mods = NULL;
	struct json_object *root, *mod, *secs, *sec, *v;
	struct secmap_snapshot *snap;
	struct json_doc d;
	struct json_out *o;
	struct resolve_out out = { 0 };
	SECMAP_OPTS(secmap_ko_section, ref);
	struct secmap_ko *ko;
	const char *missing;
	char *text = NULL, want[256], num[24];
	size_t nr, len;
	FILE *f;

	paths[0] = self->ko;
	s.paths = paths;
	snap = fake_snapshot("fixture", self->id, self->id_len, 1);
	ASSERT_NE(NULL, snap);
	resolve(snap, &s, false, false, &out);
	ASSERT_EQ(SECMAP_EXIT_OK, out.ret);
	ASSERT_EQ(0, dump_select(snap, NULL, 0, &mods, &nr, &missing));
	ASSERT_EQ(0, secmap_ko_open(self->ko, &ko));

	text = dump_json_text(mods, nr, out.kos, false);
	ASSERT_NE(NULL, text);
	root = parse_strict(text);
	free(text);
	text = NULL;
	ASSERT_NE(NULL, root);
	mod = json_object_array_get_idx(json_object_object_get(root, "modules"), 0);
	EXPECT_STREQ(self->ko, json_object_get_string(json_object_object_get(mod, "path")));
	secs = json_object_object_get(mod, "sections");
	/* .text */
	sec = json_object_array_get_idx(secs, 0);
	ASSERT_EQ(0, secmap_ko_section(ko, ".text", &ref));
	EXPECT_EQ(ref.size, json_object_get_uint64(json_object_object_get(sec, "size")));
	EXPECT_EQ(ref.offset, json_object_get_uint64(json_object_object_get(sec, "pgoff")));
	EXPECT_TRUE(json_object_get_boolean(json_object_object_get(sec, "exec")));
	EXPECT_EQ(2U, json_object_get_uint64(json_object_object_get(sec, "symbols")));
	EXPECT_FALSE(json_object_get_boolean(json_object_object_get(sec, "init")));
	/* .data..percpu */
	sec = json_object_array_get_idx(secs, 3);
	EXPECT_FALSE(json_object_get_boolean(json_object_object_get(sec, "exec")));
	EXPECT_TRUE(json_object_is_type(json_object_object_get(sec, "size"), json_type_int));
	/* .init.text keeps the kernel's flags */
	sec = json_object_array_get_idx(secs, 4);
	EXPECT_TRUE(json_object_get_boolean(json_object_object_get(sec, "init")));
	EXPECT_TRUE(json_object_get_boolean(json_object_object_get(sec, "freed")));
	EXPECT_TRUE(json_object_get_boolean(json_object_object_get(sec, "exec")));
	/* not in the file: present, null */
	sec = json_object_array_get_idx(secs, 5);
	EXPECT_TRUE(json_object_object_get_ex(sec, "size", &v));
	EXPECT_EQ(NULL, v);
	EXPECT_TRUE(json_object_object_get_ex(sec, "exec", &v));
	EXPECT_EQ(NULL, v);
	EXPECT_TRUE(json_object_object_get_ex(sec, "symbols", &v));
	EXPECT_EQ(NULL, v);
	/* The module without a .ko: path null, sizes null */
	mod = json_object_array_get_idx(json_object_object_get(root, "modules"), 1);
	EXPECT_TRUE(json_object_object_get_ex(mod, "path", &v));
	EXPECT_EQ(NULL, v);
	sec = json_object_array_get_idx(json_object_object_get(mod, "sections"), 0);
	EXPECT_TRUE(json_object_object_get_ex(sec, "pgoff", &v));
	EXPECT_EQ(NULL, v);
	EXPECT_TRUE(json_object_object_get_ex(sec, "exec", &v));
	EXPECT_EQ(NULL, v);
	json_object_put(root);

	/* Without looking (monitor): no path, exec, symbols keys at all */
	o = json_doc_open(&d, false);
	dump_module_out(o, NULL, mods[0], NULL);
	ASSERT_EQ(0, json_doc_close(&d, o));
	root = parse_strict(d.text);
	free(d.text);
	ASSERT_NE(NULL, root);
	EXPECT_FALSE(json_object_object_get_ex(root, "path", NULL));
	sec = json_object_array_get_idx(json_object_object_get(root, "sections"), 0);
	EXPECT_FALSE(json_object_object_get_ex(sec, "exec", NULL));
	EXPECT_TRUE(json_object_object_get_ex(sec, "size", NULL));
	json_object_put(root);

	/* The table: SIZE and PGOFF columns */
	f = open_memstream(&text, &len);
	ASSERT_EQ(0, dump_print_table(f, mods, nr, out.kos));
	fclose(f);
	EXPECT_EQ(0, strncmp(text, "MODULE      SECTION                    ADDRESS             "
			     "SIZE  PGOFF  FLAGS\n", strlen("MODULE      SECTION  ")));
	EXPECT_NE(NULL, strstr(text, "  SIZE "));
	EXPECT_NE(NULL, strstr(text, "  PGOFF "));
	snprintf(want, sizeof(want), "  file %s\n", self->ko);
	EXPECT_NE(NULL, strstr(text, want));
	snprintf(num, sizeof(num), "0x%" PRIx64, ref.size);
	snprintf(want, sizeof(want), "fixture     .text                      "
		 "0xffffffffc0564000  %-4s  0x%" PRIx64 "\n", num, ref.offset);
	EXPECT_NE(NULL, strstr(text, want)) {
		TH_LOG("%s", text);
	}
	EXPECT_NE(NULL, strstr(text, "nosuch_mod  .text                      0xffffffffc0a00000  "
			       "-     -\n")) {
		TH_LOG("%s", text);
	}
	free(text);

	secmap_ko_close(ko);
	free(mods);
	resolve_free(&out, 2);
	secmap_snapshot_free(snap);
}

TEST_HARNESS_MAIN
