// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * User-space symbols for a session's frames: per file a sample maps, its
 * functions, read once and kept sorted. elfutils' libdwfl finds the best
 * symbol table (the file's .symtab, else the one of its debuginfo, found
 * by build-id or .gnu_debuglink under /usr/lib/debug, else .dynsym); we
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
	char *plt_names;
};

/* The largest file read for symbols: no program or library comes near. */
#define USER_FILE_MAX	((uint64_t)4 << 30)

static char *debuginfo_path;	/* NULL: libdwfl's default, .debug and /usr/lib/debug */

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

void libsecmap_user_syms_init(struct libsecmap_user_syms *u)
{
	memset(u, 0, sizeof(*u));
	libsecmap_hashmap_init(&u->by_path);
}

static void free_file(struct user_file *f)
{
	free(f->syms);
	free(f->segs);
	free(f->names);
	free(f->plt_names);
	free(f);
}

void libsecmap_user_syms_free(struct libsecmap_user_syms *u)
{
	size_t i;

	for (i = 0; i < u->nr_files; i++)
		free_file(u->files[i]);
	free(u->files);
	libsecmap_hashmap_free(&u->by_path);
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
 * ("hash_table<...>::find_slot_with_hash"), by libiberty as perf does;
 * malloc()ed, or NULL when @name stays as it is.
 */
static char *demangle(const char *name)
{
	return name[0] == '_' && name[1] == 'Z' ? cplus_demangle(name, DMGL_NO_OPTS) : NULL;
}

/* The functions of @mod's best symbol table (@n entries) into @f->syms, names copied. */
static int read_symbols(Dwfl_Module *mod, size_t n, struct user_file *f)
{
	size_t i, len = 0;
	char *p, **shown;
	int err = 0;

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
		/* Functions, and as perf has them, the labels of .text (_start). */
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    (type != STT_NOTYPE || !in_text(in, shndx)))
			continue;
		f->syms[f->nr_syms++] = (struct user_sym){ addr, addr + sym.st_size, name,
							   (uint32_t)i,
							   (uint8_t)GELF_ST_BIND(sym.st_info) };
	}
	/* Names copied out (libdwfl's go with the module), demangled as perf shows them. */
	shown = calloc(f->nr_syms ? f->nr_syms : 1, sizeof(*shown));
	if (!shown)
		return -ENOMEM;
	for (i = 0; i < f->nr_syms; i++) {
		shown[i] = demangle(f->syms[i].name);
		len += strlen(shown[i] ? shown[i] : f->syms[i].name) + 1;
	}
	f->names = malloc(len ? len : 1);
	if (!f->names)
		err = -ENOMEM;
	for (i = 0, p = f->names; i < f->nr_syms; i++) {
		const char *name = shown[i] ? shown[i] : f->syms[i].name;

		if (p) {
			f->syms[i].name = p;
			p = stpcpy(p, name) + 1;
		}
		free(shown[i]);
	}
	free(shown);
	return err;
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
 * As perf names them, each PLT slot after the function it jumps to
 * ("strlen@plt"), one per .rela.plt relocation, in its order.
 */
static int read_plt(Elf *elf, const struct plt *plt, uint32_t order, struct user_file *f)
{
	size_t i, len = 0;
	char *p;

	for (i = 0; i < plt->nr; i++)
		len += strlen(plt_target(elf, plt, i)) + sizeof("@plt");
	f->plt_names = malloc(len ? len : 1);
	if (!f->plt_names)
		return -ENOMEM;
	for (i = 0, p = f->plt_names; i < plt->nr; i++) {
		uint64_t start = plt->first + i * PLT_SLOT;

		f->syms[f->nr_syms++] = (struct user_sym){ start, start + PLT_SLOT, p,
							   order + (uint32_t)i, STB_GLOBAL };
		p = stpcpy(stpcpy(p, plt_target(elf, plt, i)), "@plt") + 1;
	}
	return 0;
}

/* The functions of @mod, its PLT slots and the PT_LOAD segments of its file, into @f. */
static int read_module(Dwfl_Module *mod, struct user_file *f)
{
	int n = dwfl_module_getsymtab(mod), err;
	struct plt plt = { 0 };
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
	f->syms = calloc((size_t)n + plt.nr + 1, sizeof(*f->syms));
	if (!f->syms)
		return -ENOMEM;
	err = read_symbols(mod, (size_t)n, f);
	if (!err && plt.nr)
		err = read_plt(elf, &plt, (uint32_t)n, f);
	if (!err)
		sort_syms(f);
	return err;
}

/*
 * Whether @path, from the perf.data, may be opened: an absolute path with
 * no ".." in it, as the kernel writes a mapped file's (d_path()); not
 * "[vdso]", "//anon" or a name made up to reach elsewhere.
 */
static bool path_ok(const char *path)
{
	static const char *const pseudo[] = { "/proc/", "/sys/", "/dev/" };
	const char *p;
	size_t i;

	if (path[0] != '/')
		return false;
	/* Files there are no programs, and some (/proc/kcore) are vast. */
	for (i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if (!strncmp(path, pseudo[i], strlen(pseudo[i])))
			return false;
	for (p = path; (p = strstr(p, "/..")); p += 3)
		if (p[3] == '/' || !p[3])
			return false;
	return true;
}

/* @path's functions; a file that cannot be read has none. 0 or -ENOMEM. */
static int load_file(struct user_file *f)
{
	Dwfl_Module *mod;
	struct stat st;
	Dwfl *dwfl;
	int fd, err = 0;

	if (!path_ok(f->path))
		return 0;
	/* Never block on a FIFO, nor read a device, that a recorded path now names. */
	fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size ||
	    (uint64_t)st.st_size > USER_FILE_MAX) {
		close(fd);
		return 0;
	}
	dwfl = dwfl_begin(&dwfl_callbacks);
	if (!dwfl) {
		close(fd);
		return -ENOMEM;
	}
	/* The file at its link-time addresses (bias 0); @fd is libdwfl's from here. */
	mod = dwfl_report_elf(dwfl, f->path, f->path, fd, 0, true);
	if (!mod)
		close(fd);
	dwfl_report_end(dwfl, NULL, NULL);
	if (mod)
		err = read_module(mod, f);
	dwfl_end(dwfl);
	/* A file libdwfl or libelf cannot read: no functions known in it. */
	if (err && err != -ENOMEM) {
		free(f->syms);
		free(f->segs);
		free(f->names);
		free(f->plt_names);
		f->syms = NULL;
		f->segs = NULL;
		f->names = f->plt_names = NULL;
		f->nr_syms = f->nr_segs = 0;
		err = 0;
	}
	return err;
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
	if (load_file(f) || libsecmap_hashmap_add(&u->by_path, h, u->nr_files)) {
		free_file(f);
		return NULL;
	}
	u->files[u->nr_files++] = f;
	return u->last = f;
}

int libsecmap_user_symbol(struct libsecmap_user_syms *u, const char *path, uint64_t file_offset,
			  const char **name, uint64_t *offset)
{
	const struct user_file *f = find_file(u, path);
	size_t lo = 0, hi, i;
	uint64_t addr;

	*name = NULL;
	*offset = 0;
	if (!f)
		return -ENOMEM;
	for (i = 0; i < f->nr_segs; i++)
		if (file_offset - f->segs[i].offset < f->segs[i].filesz &&
		    file_offset >= f->segs[i].offset)
			break;
	if (i == f->nr_segs)
		return 0;
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
		return 0;
	*name = f->syms[lo - 1].name;
	*offset = addr - f->syms[lo - 1].start;
	return 0;
}
