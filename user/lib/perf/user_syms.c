// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * User-space symbols for a session's frames: per file a sample maps, its
 * functions, read once and kept sorted. elfutils' libdwfl finds the best
 * symbol table (the file's .symtab, else the one of its debuginfo, found
 * by build-id or .gnu_debuglink: debuginfo.c, else .dynsym); we
 * copy the functions out, close the file and answer from a sorted array.
 * libdwfl's own address lookup walks the whole table each time: a
 * profile of a million samples in libc would walk it a million times.
 *
 * A frame's address becomes the file's link-time address the way perf
 * computes it: the offset in the file (the map's pgoff plus the distance
 * from its start), then the PT_LOAD segment that holds that offset.
 * Where several functions share an address, the one perf would name is
 * kept: one with a size, a global or weak one over a local one, fewer
 * leading underscores, the longer name. A function without a size ends
 * where the next one starts.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <libiberty/demangle.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "perf/debuginfo.h"
#include "perf/session.h"

struct user_sym {
	uint64_t start, end;
	const char *name;	/* into the file's names */
	uint32_t order;		/* in the symbol table: the first wins a tie */
	uint8_t bind;		/* STB_* */
};

struct user_seg {
	uint64_t offset, filesz, vaddr;
};

struct user_file {
	const char *path;	/* interned by the session: the key */
	struct user_sym *syms;	/* by start, no two alike */
	size_t nr_syms;
	struct user_seg *segs;
	size_t nr_segs;
	char *names;
	uint8_t *build_id;	/* the file's NT_GNU_BUILD_ID, for a frame's mapping */
	size_t build_id_len;
};

/*
 * Answers by file and offset, a newer one taking an older one's place: samples
 * come back to few addresses, and a search misses the cache at each step.
 */
#define USER_ANSWERS	4096
struct user_answer {
	const char *path;	/* NULL: none here yet */
	uint64_t file_offset;
	const struct user_file *file;
	const char *symbol;
	uint64_t symbol_offset;
};

/* The largest file read for symbols: no program or library comes near. */
#define USER_FILE_MAX	((uint64_t)4 << 30)

static char *debuginfo_path;	/* NULL: libdwfl's default, .debug and /usr/lib/debug */

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = libsecmap_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

void libsecmap_user_syms_init(struct libsecmap_user_syms *u)
{
	const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	memset(u, 0, sizeof(*u));
	libsecmap_hashmap_init(&u->by_path);
	libsecmap_hashmap_init(&u->recorded_by_path);
	/* perf's places for its cache; none known (or no memory) is no cache. */
	if (dir && dir[0] == '/')
		u->buildid_dir = strdup(dir);
	else if (home && home[0] == '/' &&
		 asprintf(&u->buildid_dir, "%s%s.debug", home,
			  home[strlen(home) - 1] == '/' ? "" : "/") < 0)
		u->buildid_dir = NULL;
}

static void free_file(struct user_file *f)
{
	free(f->syms);
	free(f->segs);
	free(f->names);
	free(f->build_id);
	free(f);
}

void libsecmap_user_syms_free(struct libsecmap_user_syms *u)
{
	size_t i;

	for (i = 0; i < u->nr_files; i++)
		free_file(u->files[i]);
	free(u->files);
	libsecmap_hashmap_free(&u->by_path);
	free(u->recorded);
	libsecmap_hashmap_free(&u->recorded_by_path);
	free(u->buildid_dir);
	free(u->answers);
	memset(u, 0, sizeof(*u));
}

static unsigned int leading_underscores(const char *s)
{
	unsigned int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Of two functions at one address, whether @a is the one to keep. */
static bool better(const struct user_sym *a, const struct user_sym *b)
{
	unsigned int ua, ub;
	size_t la, lb;

	if ((a->end > a->start) != (b->end > b->start))
		return a->end > a->start;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb;
	return a->order < b->order;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct user_sym *x = a, *y = b;

	if (x == y)
		return 0;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* The one to keep first (a total order: the table's order breaks ties). */
	return better(x, y) ? -1 : 1;
}

/* @f's symbols sorted, one per address, each ending at the latest where the next begins. */
static void sort_syms(struct user_file *f)
{
	size_t i, n = 0;

	if (!f->nr_syms)
		return;
	qsort(f->syms, f->nr_syms, sizeof(*f->syms), cmp_sym);
	for (i = 0; i < f->nr_syms; i++)
		if (!n || f->syms[i].start != f->syms[n - 1].start)
			f->syms[n++] = f->syms[i];
	f->nr_syms = n;
	for (i = 0; i < n; i++) {
		uint64_t next = i + 1 < n ? f->syms[i + 1].start : UINT64_MAX;

		if (f->syms[i].end <= f->syms[i].start)
			f->syms[i].end = next;
	}
}

/* Whether section @shndx of @elf is .text. */
static bool in_text(Elf *elf, GElf_Word shndx)
{
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
	size_t strndx;
	GElf_Shdr sh;
	const char *name;

	if (!scn || !gelf_getshdr(scn, &sh) || elf_getshdrstrndx(elf, &strndx))
		return false;
	name = elf_strptr(elf, strndx, sh.sh_name);
	return name && !strcmp(name, ".text");
}

/* The PT_LOAD segments of @elf: what turns an offset in the file into an address. */
static int read_segments(Elf *elf, const GElf_Ehdr *ehdr, struct user_file *f)
{
	size_t i;

	f->segs = calloc(ehdr->e_phnum ? ehdr->e_phnum : 1, sizeof(*f->segs));
	if (!f->segs)
		return -ENOMEM;
	for (i = 0; i < ehdr->e_phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->segs[f->nr_segs++] = (struct user_seg){ ph.p_offset, ph.p_filesz,
								   ph.p_vaddr };
	}
	return 0;
}

/*
 * @name as perf shows it: a C++ name demangled without its parameters
 * ("hash_table<...>::find_slot_with_hash"), a Rust one (v0 "_R...", or
 * legacy "_ZN...17h<hash>E") without its hash, by libiberty as perf
 * does; malloc()ed, or NULL when @name stays as it is.
 */
static char *demangle(const char *name)
{
	char *rust;

	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	/* DMGL_RUST is Rust alone: NULL for a C++ name, which is tried next. */
	rust = cplus_demangle(name, DMGL_NO_OPTS | DMGL_RUST);
	if (rust || name[1] == 'R')
		return rust;
	return cplus_demangle(name, DMGL_NO_OPTS);
}

/*
 * The functions of @mod's best symbol table (@n entries) into @f->syms,
 * named in the table (copy_names()); *@any: it holds a symbol perf keeps,
 * a data object too.
 */
static void read_symbols(Dwfl_Module *mod, size_t n, struct user_file *f, bool *any)
{
	size_t i;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Word shndx;
		GElf_Addr addr;
		Elf *in = NULL;
		const char *name = dwfl_module_getsym_info(mod, (int)i, &sym, &addr, &shndx, &in,
							   NULL);
		int type = name ? GELF_ST_TYPE(sym.st_info) : STT_NOTYPE;

		if (!name || !*name || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
			continue;
		*any |= type == STT_OBJECT;
		/* Functions, and as perf has them, the labels of .text (_start). */
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    (type != STT_NOTYPE || !in_text(in, shndx)))
			continue;
		f->syms[f->nr_syms++] = (struct user_sym){ addr, addr + sym.st_size, name,
							   (uint32_t)i,
							   (uint8_t)GELF_ST_BIND(sym.st_info) };
	}
	*any |= f->nr_syms > 0;
}

/* Section @want of @elf and its header, or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t strndx;

	if (elf_getshdrstrndx(elf, &strndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name = gelf_getshdr(scn, sh) ? elf_strptr(elf, strndx, sh->sh_name) : NULL;

		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* x86-64's PLT: a 16-byte header in .plt, then 16-byte slots (or all in .plt.sec, with IBT). */
#define PLT_SLOT	16

struct plt {
	Elf_Data *relas, *dynsym;
	size_t nr, dynstr;
	uint64_t first;		/* the first slot's address */
};

/* Where @elf's PLT slots are and what names them; false without one we know. */
static bool find_plt(Elf *elf, const GElf_Ehdr *ehdr, struct plt *plt)
{
	GElf_Shdr rela, sec, dynsym;
	Elf_Scn *rela_scn, *sym_scn;

	if (ehdr->e_machine != EM_X86_64)
		return false;
	rela_scn = section_named(elf, ".rela.plt", &rela);
	if (!rela_scn || rela.sh_type != SHT_RELA || rela.sh_entsize != sizeof(Elf64_Rela))
		return false;
	if (section_named(elf, ".plt.sec", &sec))
		plt->first = sec.sh_addr;
	else if (section_named(elf, ".plt", &sec))
		plt->first = sec.sh_addr + PLT_SLOT;
	else
		return false;
	sym_scn = elf_getscn(elf, rela.sh_link);
	if (!sym_scn || !gelf_getshdr(sym_scn, &dynsym))
		return false;
	plt->relas = elf_getdata(rela_scn, NULL);
	plt->dynsym = elf_getdata(sym_scn, NULL);
	plt->dynstr = dynsym.sh_link;
	plt->nr = rela.sh_size / sizeof(Elf64_Rela);
	/* No more slots than the section holds. */
	if (plt->nr > sec.sh_size / PLT_SLOT)
		plt->nr = sec.sh_size / PLT_SLOT;
	return plt->relas && plt->dynsym;
}

/* The name of @plt's relocation @i: what its symbol is called, "" without one. */
static const char *plt_target(Elf *elf, const struct plt *plt, size_t i)
{
	const char *name = NULL;
	GElf_Rela r;
	GElf_Sym sym;
	size_t idx;

	if (!gelf_getrela(plt->relas, (int)i, &r))
		return "";
	idx = GELF_R_SYM(r.r_info);
	if (idx && gelf_getsym(plt->dynsym, (int)idx, &sym))
		name = elf_strptr(elf, plt->dynstr, sym.st_name);
	return name ? name : "";
}

/*
 * Each PLT slot, named as perf names it after the function it jumps to
 * (copy_names() adds "@plt"), one per .rela.plt relocation, in its order.
 */
static void read_plt(Elf *elf, const struct plt *plt, uint32_t order, struct user_file *f)
{
	size_t i;

	for (i = 0; i < plt->nr; i++) {
		uint64_t start = plt->first + i * PLT_SLOT;

		f->syms[f->nr_syms++] = (struct user_sym){ start, start + PLT_SLOT,
							   plt_target(elf, plt, i),
							   order + (uint32_t)i, STB_GLOBAL };
	}
}

/*
 * @f's names, still the file's tables', copied out (they go with the
 * module) as perf shows them: demangled, and "name@plt" from @first_plt on.
 */
static int copy_names(struct user_file *f, size_t first_plt)
{
	char *p, **shown = calloc(f->nr_syms ? f->nr_syms : 1, sizeof(*shown));
	size_t i, len = 0;

	if (!shown)
		return -ENOMEM;
	for (i = 0; i < f->nr_syms; i++) {
		shown[i] = demangle(f->syms[i].name);
		len += strlen(shown[i] ? shown[i] : f->syms[i].name) + 1 +
		       (i >= first_plt ? strlen("@plt") : 0);
	}
	f->names = malloc(len ? len : 1);
	for (i = 0, p = f->names; i < f->nr_syms; i++) {
		const char *name = shown[i] ? shown[i] : f->syms[i].name;

		if (p) {
			f->syms[i].name = p;
			p = stpcpy(stpcpy(p, name), i >= first_plt ? "@plt" : "") + 1;
		}
		free(shown[i]);
	}
	free(shown);
	return f->names ? 0 : -ENOMEM;
}

/* The functions of @mod, its PLT slots and the PT_LOAD segments of its file, into @f. */
/* The build-id of the file the functions come from: 0 or -ENOMEM (none is no error). */
static int read_build_id(Dwfl_Module *mod, struct user_file *f)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);

	if (len <= 0)
		return 0;
	f->build_id = malloc((size_t)len);
	if (!f->build_id)
		return -ENOMEM;
	memcpy(f->build_id, bits, (size_t)len);
	f->build_id_len = (size_t)len;
	return 0;
}

static int read_module(Dwfl_Module *mod, struct user_file *f)
{
	int n = dwfl_module_getsymtab(mod), err;
	struct plt plt = { 0 };
	bool any = false;
	size_t first_plt;
	GElf_Addr bias;
	GElf_Ehdr ehdr;
	Elf *elf;

	elf = dwfl_module_getelf(mod, &bias);
	if (!elf || !gelf_getehdr(elf, &ehdr))
		return -EINVAL;
	err = read_segments(elf, &ehdr, f);
	if (err)
		return err;
	if (n < 0)
		n = 0;
	if (!find_plt(elf, &ehdr, &plt))
		plt.nr = 0;
	err = read_build_id(mod, f);
	if (err)
		return err;
	f->syms = calloc((size_t)n + plt.nr + 1, sizeof(*f->syms));
	if (!f->syms)
		return -ENOMEM;
	read_symbols(mod, (size_t)n, f, &any);
	first_plt = f->nr_syms;
	/* perf names the PLT's slots only in a file that gave it symbols (dso__load()). */
	if (any)
		read_plt(elf, &plt, (uint32_t)n, f);
	err = copy_names(f, first_plt);
	if (!err)
		sort_syms(f);
	return err;
}

/*
 * Whether @path names a JIT's symbol map as perf writes it,
 * /tmp/perf-PID.map, and the session names JIT code after it.
 */
static bool is_perf_map(const char *path)
{
	int pid, n = 0;

	return sscanf(path, "/tmp/perf-%d.map%n", &pid, &n) == 1 && n && !path[n];
}

/* One line of a perf map, "START SIZE NAME" (hex numbers), into @sym; false if it is not one. */
static bool parse_perf_map_line(char *line, struct user_sym *sym, size_t *name_at)
{
	char *p = line, *end;

	errno = 0;
	sym->start = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return false;
	p = end + 1;
	sym->end = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || errno || !end[1] || sym->start + sym->end < sym->start)
		return false;
	sym->end += sym->start;
	sym->bind = STB_GLOBAL;
	*name_at = (size_t)(end + 1 - line);
	return true;
}

/* *@names made at least @need bytes long. */
static int grow_names(char **names, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 4096;
	char *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*names, n);
	if (!p)
		return -ENOMEM;
	*names = p;
	*cap = n;
	return 0;
}

/*
 * A JIT's functions from its perf map (@fd, the file): perf's format, a
 * line per function, its addresses as the process saw them. Lines that
 * are not one are skipped, as perf skips them. 0 or -ENOMEM.
 */
static int load_perf_map(struct user_file *f, int fd)
{
	size_t cap = 0, len = 0, names_cap = 0, names_len = 0, i, at;
	FILE *in = fdopen(fd, "r");
	char *line = NULL, *names;
	struct user_sym sym;
	ssize_t n;
	int err = 0;

	if (!in) {
		close(fd);
		return -ENOMEM;
	}
	while ((n = getline(&line, &len, in)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = 0;
		if (!parse_perf_map_line(line, &sym, &at))
			continue;
		if (libsecmap_grow_in(&f->syms, &cap, f->nr_syms, sizeof(*f->syms), 64) ||
		    grow_names(&f->names, &names_cap, names_len + (size_t)n - at + 1)) {
			err = -ENOMEM;
			break;
		}
		memcpy(f->names + names_len, line + at, (size_t)n - at + 1);
		/* The name's place for now: @names moves as it grows. */
		sym.name = (const char *)(uintptr_t)names_len;
		sym.order = (uint32_t)f->nr_syms;
		names_len += (size_t)n - at + 1;
		f->syms[f->nr_syms++] = sym;
	}
	free(line);
	fclose(in);
	names = f->names;
	for (i = 0; i < f->nr_syms; i++)
		f->syms[i].name = names + (uintptr_t)f->syms[i].name;
	/* Addresses are the file's offsets: one segment, the whole space. */
	f->segs = calloc(1, sizeof(*f->segs));
	if (!f->segs)
		return -ENOMEM;
	f->segs[0] = (struct user_seg){ 0, UINT64_MAX, 0 };
	f->nr_segs = 1;
	if (!err)
		sort_syms(f);
	return err;
}

/* What a file read for @f is left with when it gave no functions. */
static void forget_file(struct user_file *f)
{
	free(f->syms);
	free(f->segs);
	free(f->names);
	free(f->build_id);
	f->build_id = NULL;
	f->build_id_len = 0;
	f->syms = NULL;
	f->segs = NULL;
	f->names = NULL;
	f->nr_syms = f->nr_segs = 0;
}

/* Whether @mod's build-id is @want's (perf pads a shorter one with zeros to 20 bytes). */
static bool same_build_id(Dwfl_Module *mod, const struct user_recorded *want)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);
	size_t i;

	if (len <= 0 || (size_t)len > want->len || memcmp(bits, want->id, (size_t)len))
		return false;
	for (i = (size_t)len; i < want->len; i++)
		if (want->id[i])
			return false;
	return true;
}

/*
 * @f's functions from the file at @path: 0, -ENOENT (not a regular file
 * there, or too large), -ESTALE (not the build @want says), -ENOMEM. A
 * file libdwfl or libelf cannot read has no functions, and no error.
 */
static int load_elf(struct user_file *f, const char *path, const struct user_recorded *want)
{
	Dwfl_Module *mod;
	struct stat st;
	Dwfl *dwfl;
	int fd, err = 0;

	/* Never block on a FIFO, nor read a device, that a recorded path now names. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size ||
	    (uint64_t)st.st_size > USER_FILE_MAX) {
		close(fd);
		return -ENOENT;
	}
	/* perf reads a JIT's map only if its owner or root wrote it. */
	if (path == f->path && is_perf_map(path)) {
		if (st.st_uid && st.st_uid != geteuid()) {
			close(fd);
			return 0;
		}
		return load_perf_map(f, fd);
	}
	dwfl = dwfl_begin(&dwfl_callbacks);
	if (!dwfl) {
		close(fd);
		return -ENOMEM;
	}
	/* The file at its link-time addresses (bias 0); @fd is libdwfl's from here. */
	mod = dwfl_report_elf(dwfl, path, path, fd, 0, true);
	if (!mod)
		close(fd);
	dwfl_report_end(dwfl, NULL, NULL);
	if (mod && want && !same_build_id(mod, want))
		err = -ESTALE;
	else if (mod)
		err = read_module(mod, f);
	dwfl_end(dwfl);
	if (err && err != -ENOMEM) {
		forget_file(f);
		if (err != -ESTALE)
			err = 0;
	}
	return err;
}

/*
 * @f's functions: from the file at its path when that is the build perf
 * recorded (or perf recorded none), else from perf's build-id cache, as
 * perf finds it on another machine or after the file changed. A file
 * that cannot be read has none. 0 or -ENOMEM.
 */
static int load_file(const struct libsecmap_user_syms *u, struct user_file *f)
{
	const struct user_recorded *want = libsecmap_user_recorded(u, f->path);
	char *copy;
	int err = -ENOENT;

	if (libsecmap_user_path_ok(f->path)) {
		err = load_elf(f, f->path, want);
		if (err != -ENOENT && err != -ESTALE)
			return err;
	}
	if (!want)
		return 0;
	copy = libsecmap_user_cached_copy(u, f->path, want);
	if (copy)
		err = load_elf(f, copy, want);
	free(copy);
	return err == -ENOMEM ? err : 0;
}

/* The file @path (interned: compared by address), read on first use; NULL if out of memory. */
static struct user_file *find_file(struct libsecmap_user_syms *u, const char *path)
{
	uint64_t h = libsecmap_hashmap_hash_u64(&u->by_path, (uintptr_t)path);
	struct libsecmap_hashmap_slot *s;
	struct user_file *f;

	if (u->last && u->last->path == path)
		return u->last;
	for (s = libsecmap_hashmap_probe(&u->by_path, h); s;
	     s = libsecmap_hashmap_next(&u->by_path, h, s))
		if (u->files[s->item]->path == path)
			return u->last = u->files[s->item];
	if (libsecmap_grow_in(&u->files, &u->cap_files, u->nr_files, sizeof(*u->files), 16))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = path;
	if (load_file(u, f) || libsecmap_hashmap_add(&u->by_path, h, u->nr_files)) {
		free_file(f);
		return NULL;
	}
	u->files[u->nr_files++] = f;
	return u->last = f;
}

/* The function at @file_offset in @f, into @a: a NULL symbol if none. */
static void search_symbol(const struct user_file *f, uint64_t file_offset, struct user_answer *a)
{
	size_t lo = 0, hi, i;
	uint64_t addr;

	a->symbol = NULL;
	a->symbol_offset = 0;
	for (i = 0; i < f->nr_segs; i++)
		if (file_offset - f->segs[i].offset < f->segs[i].filesz &&
		    file_offset >= f->segs[i].offset)
			break;
	if (i == f->nr_segs)
		return;
	addr = file_offset - f->segs[i].offset + f->segs[i].vaddr;
	/* The last function starting at or below @addr. */
	hi = f->nr_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= f->syms[lo - 1].end)
		return;
	a->symbol = f->syms[lo - 1].name;
	a->symbol_offset = addr - f->syms[lo - 1].start;
}

int libsecmap_user_symbol(struct libsecmap_user_syms *u, const char *path, uint64_t file_offset,
			  struct secmap_frame *frame)
{
	struct user_answer *a, none = { 0 };
	const struct user_file *f;

	/* Out of memory, no table: every frame is searched. */
	if (!u->answers)
		u->answers = calloc(USER_ANSWERS, sizeof(*u->answers));
	a = u->answers ? &u->answers[((file_offset ^ (uintptr_t)path) * 0x9e3779b97f4a7c15ull) >>
				     (64 - __builtin_ctz(USER_ANSWERS))] : &none;
	if (a->path != path || a->file_offset != file_offset) {
		f = find_file(u, path);
		if (!f)
			return -ENOMEM;
		search_symbol(f, file_offset, a);
		a->file = f;
		a->path = path;
		a->file_offset = file_offset;
	}
	frame->build_id = a->file->build_id;
	frame->build_id_len = a->file->build_id_len;
	frame->symbol = a->symbol;
	frame->symbol_offset = a->symbol_offset;
	return 0;
}
