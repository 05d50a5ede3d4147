// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the resolver: records given by hand (a module loaded,
 * init freed, unloaded, reloaded elsewhere while another takes its old
 * range; resyncs; kallsyms) over a real relocatable built here with cc and
 * ld -r, as kbuild links a .ko. Expected symbols and offsets come from nm,
 * not from libsecmap's ELF reader.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "secmap.h"

static const char fixture_src[] =
	"int counter = 3;\n"
	"__attribute__((noinline, used)) int hot_fn(int x) { return x + counter; }\n"
	"__attribute__((noinline, used)) int hot_fn2(int x) { return x * counter + 1; }\n"
	"__attribute__((section(\".text.unlikely\"), noinline, used)) int cold_fn(int x)"
	" { return x * 7 + counter; }\n"
	"__attribute__((section(\".init.text\"), used)) int init_fn(void)"
	" { return hot_fn(1) + cold_fn(2); }\n";

struct nm_sym {
	char name[64];
	char section[32];
	uint64_t value, size;
};

/* Function symbols of @ko by section, as nm and objdump see them. */
static int nm_symbols(const char *dir, struct nm_sym *out, size_t max, size_t *nr)
{
	char cmd[512], line[256];
	FILE *p;
	size_t n = 0;

	/* objdump -t: "0000000000000000 g     F .text	0000000000000011 hot_fn" */
	snprintf(cmd, sizeof(cmd), "objdump -t '%s/fix.ko'", dir);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p) && n < max) {
		char flags[16], sec[32], name[64];
		uint64_t value, size;

		if (sscanf(line, "%" SCNx64 " %15[lgw!u ] F %31s %" SCNx64 " %63s", &value, flags,
			   sec, &size, name) == 5) {
			snprintf(out[n].name, sizeof(out[n].name), "%s", name);
			snprintf(out[n].section, sizeof(out[n].section), "%s", sec);
			out[n].value = value;
			out[n].size = size;
			n++;
		}
	}
	pclose(p);
	*nr = n;
	return n ? 0 : -1;
}

static int build_fixture(const char *dir, const char *name, int variant)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && printf '%%s' '%s' > %s.c && "
		 "cc -c -O2 -fno-asynchronous-unwind-tables -DVARIANT=%d -o %s.o %s.c && "
		 "ld -r --build-id=sha1 -o %s.ko %s.o && readelf -n %s.ko | grep -q 'Build ID'",
		 dir, fixture_src, name, variant, name, name, name, name, name);
	st = system(cmd);
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/* The build-id of @dir/@name.ko as readelf prints it, into @id. */
static size_t readelf_id(const char *dir, const char *name, uint8_t *id)
{
	char cmd[512], line[256], *s;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s/%s.ko'", dir, name);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		s = strstr(line, "Build ID: ");
		if (!s)
			continue;
		for (s += strlen("Build ID: "); n < 64 && sscanf(s, "%2hhx", &id[n]) == 1; s += 2)
			n++;
	}
	if (p)
		pclose(p);
	return n;
}

/* sh_offset of section @sec of @dir/@name.ko as readelf -SW prints it; ~0 if none. */
static uint64_t readelf_sh_offset(const char *dir, const char *name, const char *sec)
{
	char cmd[512], line[512], got[128];
	uint64_t off = ~0ULL, v;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -SW '%s/%s.ko'", dir, name);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		const char *b = strchr(line, ']');

		if (b && sscanf(b + 1, "%127s %*s %*s %" SCNx64, got, &v) == 2 && !strcmp(got, sec))
			off = v;
	}
	if (p)
		pclose(p);
	return off;
}

FIXTURE(res) {
	char dir[64];
	char cache[80];
	const char *paths[2];
	struct secmap_ko_search search;
	uint8_t id[64];
	size_t id_len;
	struct nm_sym syms[16];
	size_t nr_syms;
	struct secmap_resolver *res;
};

FIXTURE_SETUP(res)
{
	strcpy(self->dir, "/tmp/secmap-resolve-test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, build_fixture(self->dir, "fix", 0));
	self->id_len = readelf_id(self->dir, "fix", self->id);
	ASSERT_EQ(20, self->id_len);
	ASSERT_EQ(0, nm_symbols(self->dir, self->syms, 16, &self->nr_syms));
	snprintf(self->cache, sizeof(self->cache), "%s/cache", self->dir);
	self->paths[0] = self->dir;
	self->paths[1] = NULL;
	/* Nothing of the host's: only the fixture directory. */
	self->search.sz = sizeof(self->search);
	self->search.paths = self->paths;
	self->search.modules_root = self->cache;
	self->search.debug_root = self->cache;
	self->search.buildid_cache = self->cache;
	self->search.release = "test";
	self->res = NULL;
}

FIXTURE_TEARDOWN(res)
{
	char cmd[128];

	secmap_resolver_free(self->res);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

static struct secmap_record map_rec(const char *mod, const char *sec, uint64_t start, uint64_t len,
				    uint64_t t, uint32_t flags, uint64_t seq, const uint8_t *id,
				    size_t id_len)
{
	struct secmap_record r = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_SEC_MAP, .pid = SECMAP_PID_HOST_KERNEL, .module = mod,
		.section = sec, .start = start, .len = len, .time_local_ns = t,
		.time_mono_ns = t + 1000000, .flags = flags, .seq = seq, .build_id = id,
		.build_id_len = id_len,
	};
	return r;
}

static struct secmap_record unmap_rec(const char *mod, uint64_t t, bool init, uint64_t seq)
{
	struct secmap_record r = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_UNMAP, .pid = SECMAP_PID_HOST_KERNEL, .module = mod,
		.time_local_ns = t, .time_mono_ns = t + 1000000,
		.flags = init ? SECMAP_UNMAP_F_INIT : 0, .seq = seq,
	};
	return r;
}

static struct secmap_record resync_rec(uint32_t reason, uint32_t nr_maps, uint64_t t, uint64_t gap)
{
	struct secmap_record r = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_RESYNC, .reason = reason, .source = SECMAP_SOURCE_NETLINK,
		.nr_maps = nr_maps, .time_local_ns = t, .time_mono_ns = t + 1000000,
		.gap_local_ns = gap, .gap_mono_ns = gap ? gap + 1000000 : 0,
	};
	return r;
}

#define TEXT	0xffffffffc0010000ull
#define COLD	0xffffffffc0012000ull
#define INIT	0xffffffffc0020000ull
#define TEXT2	0xffffffffc0030000ull
#define COLD2	0xffffffffc0032000ull
#define INIT2	0xffffffffc0040000ull
#define SIZE	0x1000

/* fix loaded at 100 (TEXT, COLD, INIT), init freed at 200, unloaded at 300. */
static void add_first_life(struct __test_metadata *_metadata, FIXTURE_DATA(res) *self,
			   uint64_t len)
{
	SECMAP_OPTS(secmap_record, r);

	r = resync_rec(SECMAP_RESYNC_START, 0, 50, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &r));
	r = map_rec("fix", ".text", TEXT, len, 100, SECMAP_MAP_F_EXEC, 7, self->id, self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &r));
	r = map_rec("fix", ".text.unlikely", COLD, len, 100, SECMAP_MAP_F_EXEC, 7, self->id,
		    self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &r));
	r = map_rec("fix", ".init.text", INIT, len, 100, SECMAP_MAP_F_EXEC | SECMAP_MAP_F_INIT, 7,
		    self->id, self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &r));
	r = unmap_rec("fix", 200, true, 8);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &r));
	r = unmap_rec("fix", 300, false, 9);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &r));
}

static uint64_t base_of(const char *section, bool second)
{
	if (!strcmp(section, ".text"))
		return second ? TEXT2 : TEXT;
	if (!strcmp(section, ".text.unlikely"))
		return second ? COLD2 : COLD;
	return second ? INIT2 : INIT;
}

/* Every byte of every function nm lists resolves to it, at @t. */
static void check_all_symbols(struct __test_metadata *_metadata, FIXTURE_DATA(res) *self,
			      uint64_t t, bool second, bool init_valid)
{
	static const char *const secs[] = { ".text", ".text.unlikely", ".init.text" };
	SECMAP_OPTS(secmap_resolution, r);
	uint64_t off, sh_off[3];
	size_t i;

	for (i = 0; i < 3; i++) {
		sh_off[i] = readelf_sh_offset(self->dir, "fix", secs[i]);
		ASSERT_NE(~0ULL, sh_off[i]) TH_LOG("readelf shows no %s", secs[i]);
	}
	for (i = 0; i < self->nr_syms; i++) {
		const struct nm_sym *s = &self->syms[i];
		bool init = !strcmp(s->section, ".init.text");

		for (off = 0; off < s->size; off++) {
			int err = secmap_resolve(self->res, base_of(s->section, second) + s->value +
						 off, t, &r);

			if (init && !init_valid) {
				ASSERT_EQ(-ENOENT, err);
				continue;
			}
			ASSERT_EQ(0, err);
			ASSERT_EQ(SECMAP_RESOLVED_MODULE, r.kind);
			ASSERT_STREQ("fix", r.module);
			ASSERT_STREQ(s->section, r.section);
			ASSERT_EQ(s->value + off, r.section_offset);
			ASSERT_NE(NULL, r.symbol) TH_LOG("%s+%" PRIu64 ": %s", s->name, off, r.reason);
			ASSERT_STREQ(s->name, r.symbol);
			ASSERT_EQ(off, r.symbol_offset);
			/* Where the byte is in the .ko, as readelf places its section. */
			ASSERT_EQ(sh_off[init ? 2 : strcmp(s->section, ".text") ? 1 : 0] + s->value +
				  off, r.file_offset);
		}
	}
}

TEST_F(res, every_function_byte_in_every_section)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	add_first_life(_metadata, self, SIZE);
	ASSERT_EQ(0, secmap_resolver_finish(self->res));
	ASSERT_GE(self->nr_syms, 4);
	check_all_symbols(_metadata, self, 150, false, true);
	/* After init is freed: the rest still, init no more. */
	check_all_symbols(_metadata, self, 250, false, false);
}

/*
 * The first life; then "other" takes fix's old .text range at 400 and fix
 * comes back elsewhere at 500.
 */
static void add_reload_and_reuse(struct __test_metadata *_metadata, FIXTURE_DATA(res) *self)
{
	uint8_t other_id[20] = { 1, 2, 3 };
	SECMAP_OPTS(secmap_record, rec);

	add_first_life(_metadata, self, SIZE);
	rec = map_rec("other", ".text", TEXT, 3 * SIZE, 400, SECMAP_MAP_F_EXEC, 10, other_id, 20);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("fix", ".text", TEXT2, SIZE, 500, SECMAP_MAP_F_EXEC, 11, self->id,
		      self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("fix", ".text.unlikely", COLD2, SIZE, 500, SECMAP_MAP_F_EXEC, 11, self->id,
		      self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("fix", ".init.text", INIT2, SIZE, 500, SECMAP_MAP_F_EXEC | SECMAP_MAP_F_INIT,
		      11, self->id, self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
}

TEST_F(res, lifetimes_reload_and_reuse)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search);
	SECMAP_OPTS(secmap_resolution, r);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	add_reload_and_reuse(_metadata, self);
	ASSERT_EQ(0, secmap_resolver_finish(self->res));

	check_all_symbols(_metadata, self, 150, false, true);
	check_all_symbols(_metadata, self, 600, true, true);	/* init never freed */
	/* Between the lives: nothing there. */
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, TEXT + 1, 350, &r));
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, TEXT2 + 1, 350, &r));
	/* The old range, now other's: no .ko for it, section and offset only. */
	ASSERT_EQ(0, secmap_resolve(self->res, TEXT + 0x10, 450, &r));
	ASSERT_STREQ("other", r.module);
	ASSERT_STREQ(".text", r.section);
	ASSERT_EQ(0x10, r.section_offset);
	ASSERT_EQ(NULL, r.symbol);
	ASSERT_STREQ("no .ko found", r.reason);
	/* Its range reaches over what was fix's .text.unlikely: other's, later. */
	ASSERT_EQ(0, secmap_resolve(self->res, COLD + 4, 450, &r));
	ASSERT_STREQ("other", r.module);
	ASSERT_EQ(0, secmap_resolve(self->res, COLD + 4, 150, &r));
	ASSERT_STREQ("fix", r.module);
	/* Time at the exact edges is inclusive. */
	ASSERT_EQ(0, secmap_resolve(self->res, TEXT + 1, 100, &r));
	ASSERT_STREQ("fix", r.module);
	ASSERT_EQ(0, secmap_resolve(self->res, TEXT + 1, 300, &r));
	ASSERT_STREQ("fix", r.module);
	/* Any time: the latest mapping there. */
	ASSERT_EQ(0, secmap_resolve(self->res, TEXT + 1, SECMAP_TIME_ANY, &r));
	ASSERT_STREQ("other", r.module);
	ASSERT_EQ(2, secmap_resolver_nr_modules(self->res));
}

/* Batches answer exactly as single lookups, misses and the edges of time included. */
TEST_F(res, many_at_once_equals_one_by_one)
{
	static const uint64_t bases[] = { TEXT, COLD, INIT, TEXT2, COLD2, INIT2 };
	static const uint64_t times[] = { 0, 99, 100, 150, 200, 250, 300, 350, 400, 450, 500, 600,
					  SECMAP_TIME_ANY };
	enum { N = 6 * 2 * (SIZE + 64) / 16 * 13 };
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search);
	static struct secmap_resolution one = { .sz = sizeof(one) }, many[N];
	static uint64_t addrs[N], at[N];
	static int ret[N];
	size_t i, n = 0, b, t, found = 0;
	uint64_t off;

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	add_reload_and_reuse(_metadata, self);
	ASSERT_EQ(0, secmap_resolver_finish(self->res));
	/* Around and inside each range, at every time: lookups in random-ish order. */
	for (t = 0; t < sizeof(times) / sizeof(times[0]); t++)
		for (b = 0; b < sizeof(bases) / sizeof(bases[0]); b++)
			for (off = 0; off < 2 * (SIZE + 64); off += 16) {
				ASSERT_LT(n, N);
				addrs[n] = bases[(b + off / 16) % 6] - 64 + off / 2 + t;
				at[n++] = times[t];
			}
	many[0].sz = sizeof(many[0]);
	secmap_resolve_many(self->res, addrs, at, n, many, ret);
	for (i = 0; i < n; i++) {
		int err = secmap_resolve(self->res, addrs[i], at[i], &one);

		ASSERT_EQ(err, ret[i]) TH_LOG("%#" PRIx64 " at %" PRIu64, addrs[i], at[i]);
		if (err)
			continue;
		found++;
		ASSERT_EQ(0, memcmp(&one, &many[i], sizeof(one)));
	}
	/* Both kinds of answer were there. */
	ASSERT_GT(found, n / 4);
	ASSERT_LT(found, n);
	/* Any time for all, when @times is NULL. */
	many[0].sz = sizeof(many[0]);
	secmap_resolve_many(self->res, addrs, NULL, n, many, ret);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(secmap_resolve(self->res, addrs[i], SECMAP_TIME_ANY, &one), ret[i]);
		if (!ret[i])
			ASSERT_EQ(0, memcmp(&one, &many[i], sizeof(one)));
	}
}

/*
 * A random timeline checked against a model of it kept here: modules
 * loaded over and over, each load's sections placed at random, unloaded at
 * random; half the loads into a few pages (a page there is covered by more
 * than a hundred mappings over the recording), half into many (a handful
 * each), so that both ways of searching a page's list are taken. The model's
 * answer for (address, time) is a linear scan: of the mappings holding
 * the address with from <= time <= to, the last to start. Every time an
 * event happened, and the instants either side, are asked about.
 */
#define MODEL_AREA	0xffffffffc0100000ull
#define MODEL_PAGES	8		/* the crowded area; then SPARSE_PAGES more */
#define SPARSE_PAGES	120
#define MODEL_NAMES	8
#define MODEL_MAPS	1500

struct model_map {
	uint64_t start, end, from, to;
	unsigned int name, section;
};

static uint64_t model_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static const struct model_map *model_find(const struct model_map *maps, size_t n, uint64_t addr,
					  uint64_t t)
{
	const struct model_map *best = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (maps[i].start <= addr && addr < maps[i].end && maps[i].from <= t &&
		    t <= maps[i].to && (!best || maps[i].from > best->from))
			best = &maps[i];
	return best;
}

TEST_F(res, random_timeline_against_a_model)
{
	static const char *const names[MODEL_NAMES] = { "m0", "m1", "m2", "m3",
							 "m4", "m5", "m6", "m7" };
	static const char *const sections[] = { ".text", ".text.unlikely", ".noinstr.text",
						".exit.text" };
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search, .no_ko = true);
	static struct model_map maps[MODEL_MAPS];
	size_t nr = 0, open_from[MODEL_NAMES], i, asked = 0, hits = 0, crowded = 0, sparse = 0;
	bool loaded[MODEL_NAMES] = { false };
	uint64_t state = 0x5eed5eedull, t, seq = 1, addr, end_time;
	SECMAP_OPTS(secmap_resolution, r);
	SECMAP_OPTS(secmap_record, rec);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	rec = resync_rec(SECMAP_RESYNC_START, 0, 1, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	/* One event every 10 ns from 10 on, each at a time of its own. */
	for (t = 10; nr + 4 <= MODEL_MAPS; t += 10) {
		unsigned int m = model_rand(&state) % MODEL_NAMES, s, nsec;

		if (loaded[m]) {
			rec = unmap_rec(names[m], t, false, seq++);
			ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
			for (i = open_from[m]; i < nr; i++)
				if (maps[i].name == m && maps[i].to == UINT64_MAX)
					maps[i].to = t;
			loaded[m] = false;
			continue;
		}
		addr = MODEL_AREA + model_rand(&state) % (MODEL_PAGES * 4096);
		if (model_rand(&state) & 1)
			addr += MODEL_PAGES * 4096 + model_rand(&state) % (SPARSE_PAGES * 4096);
		nsec = 1 + model_rand(&state) % 4;
		open_from[m] = nr;
		for (s = 0; s < nsec; s++) {
			uint64_t len = 16 + model_rand(&state) % 6000;

			maps[nr] = (struct model_map) {
				.start = addr, .end = addr + len, .from = t, .to = UINT64_MAX,
				.name = m, .section = s,
			};
			rec = map_rec(names[m], sections[s], addr, len, t, SECMAP_MAP_F_EXEC, seq,
				      NULL, 0);
			ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
			addr += len + model_rand(&state) % 256;
			nr++;
		}
		seq++;
		loaded[m] = true;
	}
	end_time = t;
	ASSERT_EQ(0, secmap_resolver_finish(self->res));

	for (t = 9; t <= end_time + 1; t += (t % 10 == 1) ? 8 : 1) {
		for (i = 0; i < 8; i++) {
			const struct model_map *want;
			int err;

			addr = MODEL_AREA - 64 + model_rand(&state) % (MODEL_PAGES * 4096 + 8192);
			if (model_rand(&state) & 1)
				addr += MODEL_PAGES * 4096 + model_rand(&state) % (SPARSE_PAGES * 4096);
			want = model_find(maps, nr, addr, t);
			err = secmap_resolve(self->res, addr, t, &r);
			asked++;
			if (!want) {
				/* Nothing, or a module's footprint: never a section. */
				if (!err)
					ASSERT_EQ(NULL, r.section) TH_LOG("%#" PRIx64 " at %" PRIu64 ": %s %s",
								  addr, t, r.module, r.section);
				continue;
			}
			hits++;
			ASSERT_EQ(0, err) TH_LOG("%#" PRIx64 " at %" PRIu64 ": want %s", addr, t,
						 names[want->name]);
			ASSERT_STREQ(names[want->name], r.module);
			ASSERT_STREQ(sections[want->section], r.section);
			ASSERT_EQ(addr - want->start, r.section_offset);
		}
	}
	/* Pages covered by more than a hundred mappings, and by a few. */
	for (addr = MODEL_AREA; addr < MODEL_AREA + (MODEL_PAGES + SPARSE_PAGES) * 4096;
	     addr += 4096) {
		size_t n = 0;

		for (i = 0; i < nr; i++)
			n += maps[i].start < addr + 4096 && addr < maps[i].end;
		crowded += n > 100;
		sparse += n > 1 && n < 16;
	}
	ASSERT_GT(crowded, 0);
	ASSERT_GT(sparse, 0);
	ASSERT_GT(hits, asked / 8);
	TH_LOG("%zu mappings; %zu pages covered by more than 100 of them, %zu by 2 to 15; "
	       "%zu lookups, %zu in a section", nr, crowded, sparse, asked, hits);
}

/*
 * Addresses far apart: a per-CPU template at its offset (0x39000 in a
 * 6.12 VM's recording), a section at the top of the address space, one
 * claiming 2^40 bytes. The index neither fails (it once asked for 8 GiB
 * of buckets) nor answers for the per-CPU offset.
 */
TEST_F(res, far_apart_and_oversized_maps)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search, .no_ko = true);
	SECMAP_OPTS(secmap_resolution, r);
	SECMAP_OPTS(secmap_record, rec);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	add_first_life(_metadata, self, SIZE);
	rec = map_rec("fix", ".data..percpu", 0x39000, 0x100, 100,
		      SECMAP_MAP_F_PERCPU | SECMAP_MAP_F_WRITE, 7, self->id, self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("top", ".text", 0xfffffffffff00000ull, 0x1000, 100, SECMAP_MAP_F_EXEC, 20,
		      NULL, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("huge", ".text", 0x100000000000ull, 1ull << 40, 100, SECMAP_MAP_F_EXEC, 21,
		      NULL, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	ASSERT_EQ(0, secmap_resolver_finish(self->res));

	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, 0x39010, 150, &r));
	ASSERT_EQ(0, secmap_resolve(self->res, TEXT + 8, 150, &r));
	ASSERT_STREQ("fix", r.module);
	ASSERT_EQ(8, r.section_offset);
	ASSERT_EQ(0, secmap_resolve(self->res, 0xfffffffffff00ff0ull, 150, &r));
	ASSERT_STREQ("top", r.module);
	ASSERT_EQ(0xff0, r.section_offset);
	/* The first 4 GiB of a mapping that claims more. */
	ASSERT_EQ(0, secmap_resolve(self->res, 0x100000000000ull + 0xfffffff0ull, 150, &r));
	ASSERT_STREQ("huge", r.module);
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, 0x100000000000ull - 1, 150, &r));
}

TEST_F(res, monotonic_clock)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search, .clock = SECMAP_CLOCK_MONO);
	SECMAP_OPTS(secmap_resolution, r);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	add_first_life(_metadata, self, SIZE);
	ASSERT_EQ(0, secmap_resolver_finish(self->res));
	/* The records' monotonic times are 1 ms later than local_clock's. */
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, TEXT + 1, 150, &r));
	ASSERT_EQ(0, secmap_resolve(self->res, TEXT + 1, 150 + 1000000, &r));
	ASSERT_STREQ("fix", r.module);
}

TEST_F(res, length_from_ko_when_recorded_without)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	add_first_life(_metadata, self, 0);
	ASSERT_EQ(0, secmap_resolver_finish(self->res));
	check_all_symbols(_metadata, self, 150, false, true);
}

TEST_F(res, build_id_mismatch_refused_unless_forced)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search);
	SECMAP_OPTS(secmap_resolver_module, mod);
	SECMAP_OPTS(secmap_resolution, r);
	const struct nm_sym *s = &self->syms[0];

	self->id[0] ^= 0xff;	/* the recording says another build */
	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	add_first_life(_metadata, self, SIZE);
	ASSERT_EQ(0, secmap_resolver_finish(self->res));
	ASSERT_EQ(0, secmap_resolver_module(self->res, 0, &mod));
	ASSERT_EQ(-ESTALE, mod.err);
	ASSERT_EQ(0, secmap_resolve(self->res, base_of(s->section, false) + s->value, 150, &r));
	ASSERT_EQ(NULL, r.symbol);
	ASSERT_STREQ(".ko has another build-id", r.reason);
	ASSERT_EQ(s->value, r.section_offset);
	secmap_resolver_free(self->res);

	opts.force = true;
	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	add_first_life(_metadata, self, SIZE);
	ASSERT_EQ(0, secmap_resolver_finish(self->res));
	check_all_symbols(_metadata, self, 150, false, true);
}

TEST_F(res, resync_closes_what_is_gone_and_opens_what_is_new)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search, .no_ko = true);
	SECMAP_OPTS(secmap_resolution, r);
	SECMAP_OPTS(secmap_record, rec);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	rec = resync_rec(SECMAP_RESYNC_START, 2, 50, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("a", ".text", TEXT, SIZE, 50, SECMAP_MAP_F_SNAPSHOT, 1, NULL, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("b", ".text", TEXT2, SIZE, 50, SECMAP_MAP_F_SNAPSHOT, 2, NULL, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	/* Events lost from 1000; at 2000 a snapshot: b as it was, a gone, c new. */
	rec = resync_rec(SECMAP_RESYNC_LOST, 2, 2000, 1000);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("b", ".text", TEXT2, SIZE, 2000, SECMAP_MAP_F_SNAPSHOT, 2, NULL, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("c", ".text", INIT2, SIZE, 2000, SECMAP_MAP_F_SNAPSHOT, 5, NULL, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	ASSERT_EQ(0, secmap_resolver_finish(self->res));

	ASSERT_EQ(0, secmap_resolve(self->res, TEXT + 1, 10, &r));	/* START: from the first */
	ASSERT_STREQ("a", r.module);
	ASSERT_EQ(0, secmap_resolve(self->res, TEXT + 1, 999, &r));
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, TEXT + 1, 1500, &r));
	ASSERT_EQ(0, secmap_resolve(self->res, TEXT2 + 1, 5000, &r));
	ASSERT_STREQ("b", r.module);
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, INIT2 + 1, 999, &r));
	ASSERT_EQ(0, secmap_resolve(self->res, INIT2 + 1, 1500, &r));
	ASSERT_STREQ("c", r.module);
	ASSERT_STREQ("no .ko found", r.reason);
	/* c came at some time in the gap: an answer in it says so; after it, not. */
	ASSERT_TRUE(r.map_flags & SECMAP_RESOLVED_F_IN_GAP);
	ASSERT_EQ(0, secmap_resolve(self->res, INIT2 + 1, 2500, &r));
	ASSERT_FALSE(r.map_flags & SECMAP_RESOLVED_F_IN_GAP);
	/* b was there before the gap and after: no guess. */
	ASSERT_EQ(0, secmap_resolve(self->res, TEXT2 + 1, 1500, &r));
	ASSERT_FALSE(r.map_flags & SECMAP_RESOLVED_F_IN_GAP);
	ASSERT_EQ(0, secmap_resolve(self->res, INIT2 + 1, SECMAP_TIME_ANY, &r));
	ASSERT_FALSE(r.map_flags & SECMAP_RESOLVED_F_IN_GAP);
}

/* A load kept across a resync whose snapshot shows its init freed: closed at the gap's start. */
TEST_F(res, kept_load_init_freed_in_gap)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search);
	SECMAP_OPTS(secmap_resolution, r);
	SECMAP_OPTS(secmap_record, rec);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	rec = resync_rec(SECMAP_RESYNC_START, 0, 50, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("fix", ".text", TEXT, SIZE, 100, SECMAP_MAP_F_EXEC, 7, self->id, self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("fix", ".init.text", INIT, SIZE, 100, SECMAP_MAP_F_EXEC | SECMAP_MAP_F_INIT,
		      7, self->id, self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	/* Events lost from 1000 (the init-free among them); the snapshot at 2000. */
	rec = resync_rec(SECMAP_RESYNC_LOST, 2, 2000, 1000);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("fix", ".text", TEXT, SIZE, 2000, SECMAP_MAP_F_EXEC | SECMAP_MAP_F_SNAPSHOT,
		      7, self->id, self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("fix", ".init.text", INIT, SIZE, 2000, SECMAP_MAP_F_EXEC | SECMAP_MAP_F_INIT |
		      SECMAP_MAP_F_SNAPSHOT | SECMAP_MAP_F_FREED, 7, self->id, self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	ASSERT_EQ(0, secmap_resolver_finish(self->res));

	ASSERT_EQ(0, secmap_resolve(self->res, INIT + 1, 500, &r));
	ASSERT_STREQ(".init.text", r.section);
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, INIT + 1, 1500, &r));
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, INIT + 1, 5000, &r));
	ASSERT_EQ(0, secmap_resolve(self->res, TEXT + 1, 5000, &r));
	ASSERT_STREQ(".text", r.section);
	ASSERT_FALSE(r.map_flags & SECMAP_RESOLVED_F_IN_GAP);
}

/*
 * A load seen only once its init was done (the uevent backend): its init
 * section, flagged freed, maps nothing, though its .text does; the next
 * module's init, loaded where the first's was, is not named after it.
 */
TEST_F(res, load_seen_after_init_freed)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search);
	SECMAP_OPTS(secmap_resolution, r);
	SECMAP_OPTS(secmap_record, rec);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	rec = resync_rec(SECMAP_RESYNC_START, 0, 50, 0);
	rec.source = SECMAP_SOURCE_SYSFS;
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("fix", ".text", TEXT, SIZE, 100, SECMAP_MAP_F_EXEC, 7, self->id, self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = map_rec("fix", ".init.text", INIT, SIZE, 100, SECMAP_MAP_F_EXEC | SECMAP_MAP_F_INIT |
		      SECMAP_MAP_F_FREED, 7, self->id, self->id_len);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = unmap_rec("fix", 300, false, 9);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	ASSERT_EQ(0, secmap_resolver_finish(self->res));

	ASSERT_EQ(0, secmap_resolve(self->res, TEXT + 1, 200, &r));
	ASSERT_STREQ(".text", r.section);
	/* Before the load was seen, at any time in its life, after: nothing at INIT. */
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, INIT + 1, 90, &r));
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, INIT + 1, 200, &r));
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, INIT + 1, 400, &r));
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, TEXT + 1, 90, &r));
}

TEST_F(res, inside_module_outside_sections)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search);
	SECMAP_OPTS(secmap_resolution, r);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	add_first_life(_metadata, self, 0x1800);
	ASSERT_EQ(0, secmap_resolver_finish(self->res));
	/* Between .text (0x1800 long) and .text.unlikely, 0x2000 from it: padding. */
	ASSERT_EQ(0, secmap_resolve(self->res, TEXT + 0x1900, 150, &r));
	ASSERT_STREQ("fix", r.module);
	ASSERT_EQ(NULL, r.section);
	ASSERT_EQ(0x1900, r.section_offset);
	ASSERT_STREQ("in the module, in no recorded section", r.reason);
	/* Far from any of its sections: nobody's. */
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, TEXT + 0x100000, 150, &r));
}

TEST_F(res, kernel_symbols_from_kallsyms)
{
	static const char ks[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 T startup_64\n"
		"ffffffff81001000 t some_local\n"
		"ffffffff81002000 D some_data\n"
		"ffffffff81003000 T do_work\n"
		"ffffffff81200000 T _etext\n";
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search, .no_ko = true);
	struct secmap_record rec = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_KALLSYMS, .text = ks, .text_len = 60,
	};
	SECMAP_OPTS(secmap_resolution, r);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	/* In two pieces, as the writer splits it. */
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec.text = ks + 60;
	rec.text_len = sizeof(ks) - 1 - 60;
	rec.text_offset = 60;
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	ASSERT_EQ(0, secmap_resolver_finish(self->res));
	ASSERT_EQ(5, secmap_resolver_nr_kernel_symbols(self->res));
	ASSERT_EQ(0, secmap_resolve(self->res, 0xffffffff81001010ull, 1, &r));
	ASSERT_EQ(SECMAP_RESOLVED_KERNEL, r.kind);
	ASSERT_STREQ("[kernel.kallsyms]", r.module);
	ASSERT_STREQ("some_local", r.symbol);
	ASSERT_EQ(0x10, r.symbol_offset);
	/* Data symbols are not text: some_local runs on to do_work. */
	ASSERT_EQ(0, secmap_resolve(self->res, 0xffffffff81002010ull, 1, &r));
	ASSERT_STREQ("some_local", r.symbol);
	ASSERT_EQ(0, secmap_resolve(self->res, 0xffffffff81003004ull, 1, &r));
	ASSERT_STREQ("do_work", r.symbol);
	/* Beyond the last text symbol by more than a page: not the kernel's text. */
	ASSERT_EQ(0, secmap_resolve(self->res, 0xffffffff81200010ull, 1, &r));
	ASSERT_STREQ("_etext", r.symbol);
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, 0xffffffff81201000ull, 1, &r));
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, 0xffffffff80000000ull, 1, &r));
}

/*
 * A name that ends the one before it is stored once (a 6.2+ kernel's
 * __pfx_ padding symbols come just before their functions): each address
 * still gets its own name, the short one included, in any order of lines,
 * with a data symbol between and a line cut between two pieces.
 */
TEST_F(res, kernel_names_that_end_the_one_before)
{
	static const char ks[] =
		"ffffffff81000ff0 T __pfx_foo\n"
		"ffffffff81001000 T foo\n"
		"ffffffff81001100 t oo\n"
		"ffffffff81001200 t foo\n"
		"ffffffff81001ff0 t __pfx_bar\n"
		"ffffffff81001ff8 D data_bar\n"
		"ffffffff81002000 t bar\n"
		"ffffffff81000e00 T __pfx___pfx_foo\n"
		"ffffffff81003000 T x\n"
		"ffffffff81003100 T xx\n";
	static const struct {
		uint64_t at;
		const char *name;
	} want[] = {
		{ 0xffffffff81000e01ull, "__pfx___pfx_foo" }, { 0xffffffff81000ff1ull, "__pfx_foo" },
		{ 0xffffffff81001001ull, "foo" }, { 0xffffffff81001101ull, "oo" },
		{ 0xffffffff81001201ull, "foo" }, { 0xffffffff81001ff1ull, "__pfx_bar" },
		{ 0xffffffff81002001ull, "bar" }, { 0xffffffff81003001ull, "x" },
		{ 0xffffffff81003101ull, "xx" },
	};
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search, .no_ko = true);
	struct secmap_record rec = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_KALLSYMS, .text = ks, .text_len = 50,
	};
	SECMAP_OPTS(secmap_resolution, r);
	size_t i;

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec.text = ks + 50;
	rec.text_len = sizeof(ks) - 1 - 50;
	rec.text_offset = 50;
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	ASSERT_EQ(0, secmap_resolver_finish(self->res));
	ASSERT_EQ(9, secmap_resolver_nr_kernel_symbols(self->res));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ASSERT_EQ(0, secmap_resolve(self->res, want[i].at, 1, &r));
		EXPECT_STREQ(want[i].name, r.symbol) TH_LOG("%#" PRIx64, want[i].at);
		EXPECT_EQ(1, r.symbol_offset);
	}
}

/*
 * A recording may say anything: symbols near both ends of the address
 * space (a text the size of it, in few buckets), the last in the top page,
 * a page below the first modulo 2^64. (Address 0 is kallsyms' hidden
 * address: such a line is no symbol.)
 */
TEST_F(res, kernel_symbols_at_the_ends_of_the_address_space)
{
	static const char ks[] =
		"0000000000000800 T bottom\n"
		"0000000000002000 T next\n"
		"fffffffffffff800 T top\n";
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search, .no_ko = true);
	struct secmap_record rec = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_KALLSYMS, .text = ks, .text_len = sizeof(ks) - 1,
	};
	SECMAP_OPTS(secmap_resolution, r);

	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	ASSERT_EQ(0, secmap_resolver_finish(self->res));
	ASSERT_EQ(3, secmap_resolver_nr_kernel_symbols(self->res));
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, 0x7ff, 1, &r));
	ASSERT_EQ(0, secmap_resolve(self->res, 0x1fff, 1, &r));
	ASSERT_STREQ("bottom", r.symbol);
	ASSERT_EQ(0, secmap_resolve(self->res, 0x8000000000000000ull, 1, &r));
	ASSERT_STREQ("next", r.symbol);
	ASSERT_EQ(0, secmap_resolve(self->res, 0xfffffffffffff7ffull, 1, &r));
	ASSERT_STREQ("next", r.symbol);
	ASSERT_EQ(0, secmap_resolve(self->res, UINT64_MAX - 1, 1, &r));
	ASSERT_STREQ("top", r.symbol);
	ASSERT_EQ(0x7fe, r.symbol_offset);
}

/*
 * Enough symbols for the search to go through its index of blocks: every
 * symbol's first and last byte, and the bytes around each block's edge,
 * against the answer a walk over the list gives. Symbol i is at
 * BASE + 16 * i + (i % 3) * 4 (uneven sizes), named s<i>.
 */
TEST_F(res, many_kernel_symbols_each_found)
{
	enum { NR_BYTES = 2 * (16 * 1000 + 64) };
	const uint64_t base = 0xffffffff81000000ull;
	const size_t n = 1000;
	static struct secmap_resolution many[NR_BYTES];
	static uint64_t addrs[NR_BYTES];
	static size_t expect[NR_BYTES / 2];
	static int ret[NR_BYTES];
	SECMAP_OPTS(secmap_resolver_opts, opts, .search = &self->search, .no_ko = true);
	SECMAP_OPTS(secmap_record, rec, .type = SECMAP_REC_KALLSYMS);
	SECMAP_OPTS(secmap_resolution, r);
	char *ks, *p, want[16];
	uint64_t at;
	size_t i, j;

	ks = malloc(n * 40);
	ASSERT_NE(NULL, ks);
	for (i = 0, p = ks; i < n; i++)
		p += sprintf(p, "%016llx T s%zu\n",
			     (unsigned long long)(base + 16 * i + (i % 3) * 4), i);
	rec.text = ks;
	rec.text_len = (size_t)(p - ks);
	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	ASSERT_EQ(0, secmap_resolver_finish(self->res));
	free(ks);
	ASSERT_EQ(n, secmap_resolver_nr_kernel_symbols(self->res));
	for (at = base; at < base + 16 * n + 64; at++) {
		/* The last symbol at or below @at, by walking. */
		for (j = 0, i = 0; i < n && base + 16 * i + (i % 3) * 4 <= at; i++)
			j = i;
		expect[at - base] = j;
		ASSERT_EQ(0, secmap_resolve(self->res, at, 1, &r));
		snprintf(want, sizeof(want), "s%zu", j);
		ASSERT_STREQ(want, r.symbol);
		ASSERT_EQ(at - (base + 16 * j + (j % 3) * 4), r.symbol_offset);
	}
	ASSERT_EQ(-ENOENT, secmap_resolve(self->res, base - 1, 1, &r));
	/*
	 * In batches, which try the symbol of the answer before first: every
	 * byte in order (runs in one symbol, each edge crossed), then in a
	 * scrambled order (a different symbol almost every time).
	 */
	for (i = 0; i < NR_BYTES; i++)
		addrs[i] = base + (i < NR_BYTES / 2 ? i : (i * 7919) % (NR_BYTES / 2));
	many[0].sz = sizeof(many[0]);
	secmap_resolve_many(self->res, addrs, NULL, NR_BYTES, many, ret);
	for (i = 0; i < NR_BYTES; i++) {
		j = expect[addrs[i] - base];
		ASSERT_EQ(0, ret[i]);
		snprintf(want, sizeof(want), "s%zu", j);
		ASSERT_STREQ(want, many[i].symbol) TH_LOG("%#" PRIx64, addrs[i]);
		ASSERT_EQ(addrs[i] - (base + 16 * j + (j % 3) * 4), many[i].symbol_offset);
	}
}

TEST_F(res, records_that_do_not_fit_together)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .no_ko = true);
	SECMAP_OPTS(secmap_record, rec);

	/* A snapshot cut short by something else. */
	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	rec = resync_rec(SECMAP_RESYNC_START, 2, 50, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	rec = unmap_rec("a", 60, false, 1);
	ASSERT_EQ(-EBADMSG, secmap_resolver_add(self->res, &rec));
	ASSERT_EQ(-EBADMSG, secmap_resolver_finish(self->res));
	secmap_resolver_free(self->res);
	/* Or ending the recording. */
	ASSERT_EQ(0, secmap_resolver_new(&opts, &self->res));
	rec = resync_rec(SECMAP_RESYNC_START, 2, 50, 0);
	ASSERT_EQ(0, secmap_resolver_add(self->res, &rec));
	ASSERT_EQ(-EBADMSG, secmap_resolver_finish(self->res));
	/* Nothing resolves from a resolver that failed. */
	SECMAP_OPTS(secmap_resolution, r);

	ASSERT_EQ(-EINVAL, secmap_resolve(self->res, TEXT, 1, &r));
}

TEST_HARNESS_MAIN
