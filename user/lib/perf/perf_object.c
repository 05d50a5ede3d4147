// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The ELF objects stock perf reads a module region's functions from
 * (perf_maps.c decides what they hold), and their place in perf's build-id
 * cache.
 *
 * An object is ET_REL, of the module's class, byte order and machine:
 * one SHT_NOBITS .text at sh_offset 0 as long as the region, so that
 * perf's ET_REL module fix-ups (symbol-elf.c: the map's pgoff from .text's
 * sh_offset, symbols moved by sh_addr - sh_offset) add nothing and every
 * function sits at its offset in the region; then a GNU build-id note,
 * which perf checks against the build-id of the map record, placed after
 * .text (elfutils lays out allocated sections in order, and hotspot's
 * perfparser reads .text through it); the symbol table, its strings and
 * the section names. Laid out here (ELF_F_LAYOUT), for .text's offset 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "perf_maps.h"

enum { SEC_TEXT = 1, SEC_NOTE, SEC_SYMTAB, SEC_STRTAB, SEC_SHSTRTAB, NR_SECS };

static const char shstrtab[] = "\0.text\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab";
/* Offsets of the names above. */
static const size_t sec_name[NR_SECS] = { 0, 1, 7, 26, 34, 42 };

static void put_note32(uint8_t *p, uint32_t v, bool msb)
{
	v = msb ? htobe32(v) : htole32(v);
	memcpy(p, &v, sizeof(v));
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The symbols as ELF wants them: locals first (sh_info is the first global). */
static int elf_symbols(const struct pm_object *o, GElf_Sym **symsp, char **strtabp,
		       size_t *strtab_len, size_t *nr_local)
{
	size_t i, j, k, pos = 1, len = 1;
	GElf_Sym *syms;
	char *strtab;

	for (i = 0; i < o->nr_syms; i++)
		len += strlen(o->syms[i].name) + 1;
	syms = calloc(o->nr_syms + 1, sizeof(*syms));
	strtab = malloc(len);
	if (!syms || !strtab) {
		free(syms);
		free(strtab);
		return -ENOMEM;
	}
	strtab[0] = '\0';
	*nr_local = 1;
	for (k = 0, i = 1; k < 2; k++) {
		for (j = 0; j < o->nr_syms; j++) {
			const struct pm_sym *s = &o->syms[j];
			size_t n = strlen(s->name) + 1;

			if (s->global != (k == 1))
				continue;
			syms[i].st_name = (uint32_t)pos;
			syms[i].st_value = s->value;
			syms[i].st_size = s->size;
			syms[i].st_info = GELF_ST_INFO(s->global ? STB_GLOBAL : STB_LOCAL, STT_FUNC);
			syms[i].st_shndx = SEC_TEXT;
			memcpy(strtab + pos, s->name, n);
			pos += n;
			i++;
		}
		if (!k)
			*nr_local = i;
	}
	*symsp = syms;
	*strtabp = strtab;
	*strtab_len = len;
	return 0;
}

/* A GNU build-id note of @id, in the object's byte order. */
static void build_id_note(uint8_t *note, const uint8_t *id, bool msb)
{
	put_note32(note, 4, msb);
	put_note32(note + 4, PM_BUILD_ID_LEN, msb);
	put_note32(note + 8, NT_GNU_BUILD_ID, msb);
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, id, PM_BUILD_ID_LEN);
}

/*
 * Each section's offset, laid out here (ELF_F_LAYOUT) for .text's offset 0
 * (it takes no room: SHT_NOBITS); where the section headers go.
 */
static uint64_t lay_out(Elf *elf, GElf_Shdr *sh)
{
	uint64_t off = gelf_fsize(elf, ELF_T_EHDR, 1, EV_CURRENT);
	size_t i;

	for (i = SEC_NOTE; i < NR_SECS; i++) {
		off = align_up(off, sh[i].sh_addralign);
		sh[i].sh_offset = off;
		off += sh[i].sh_size;
	}
	return align_up(off, 8);
}

static int write_elf(const struct pm_object *o, int fd)
{
	static const Elf_Type type[NR_SECS] = {
		[SEC_TEXT] = ELF_T_BYTE, [SEC_NOTE] = ELF_T_BYTE, [SEC_SYMTAB] = ELF_T_SYM,
		[SEC_STRTAB] = ELF_T_BYTE, [SEC_SHSTRTAB] = ELF_T_BYTE,
	};
	bool msb = o->elf_data == ELFDATA2MSB;
	uint8_t note[12 + 4 + PM_BUILD_ID_LEN];
	void *buf[NR_SECS] = { NULL };
	size_t i, nr_local, strtab_len;
	GElf_Shdr sh[NR_SECS];
	char *strtab = NULL;
	GElf_Sym *syms = NULL;
	void *symtab = NULL;
	Elf_Data *d;
	Elf_Scn *scn;
	GElf_Ehdr eh;
	uint64_t off;
	Elf *elf;
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	err = elf_symbols(o, &syms, &strtab, &strtab_len, &nr_local);
	if (err)
		return err;
	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf) {
		err = -EIO;
		goto out;
	}
	err = -EINVAL;
	if (!gelf_newehdr(elf, o->elf_class))
		goto out;

	build_id_note(note, o->id, msb);
	memset(sh, 0, sizeof(sh));
	sh[SEC_TEXT].sh_type = SHT_NOBITS;
	sh[SEC_TEXT].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[SEC_TEXT].sh_offset = 0;	/* perf's ET_REL module fix-ups then add nothing */
	sh[SEC_TEXT].sh_size = o->size;
	sh[SEC_TEXT].sh_addralign = 16;
	/* After .text: an allocated section before it would move it, for elfutils. */
	sh[SEC_NOTE].sh_type = SHT_NOTE;
	sh[SEC_NOTE].sh_flags = SHF_ALLOC;
	sh[SEC_NOTE].sh_addralign = 4;
	sh[SEC_NOTE].sh_size = sizeof(note);
	buf[SEC_NOTE] = note;
	sh[SEC_SYMTAB].sh_type = SHT_SYMTAB;
	sh[SEC_SYMTAB].sh_link = SEC_STRTAB;
	sh[SEC_SYMTAB].sh_info = (uint32_t)nr_local;
	sh[SEC_SYMTAB].sh_addralign = 8;
	sh[SEC_SYMTAB].sh_entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	sh[SEC_SYMTAB].sh_size = gelf_fsize(elf, ELF_T_SYM, o->nr_syms + 1, EV_CURRENT);
	/* File and memory sizes of a symbol agree for both classes. */
	symtab = calloc(1, sh[SEC_SYMTAB].sh_size);
	buf[SEC_SYMTAB] = symtab;
	sh[SEC_STRTAB].sh_type = SHT_STRTAB;
	sh[SEC_STRTAB].sh_addralign = 1;
	sh[SEC_STRTAB].sh_size = strtab_len;
	buf[SEC_STRTAB] = strtab;
	sh[SEC_SHSTRTAB].sh_type = SHT_STRTAB;
	sh[SEC_SHSTRTAB].sh_addralign = 1;
	sh[SEC_SHSTRTAB].sh_size = sizeof(shstrtab);
	buf[SEC_SHSTRTAB] = (void *)shstrtab;
	if (!symtab) {
		err = -ENOMEM;
		goto out;
	}
	off = lay_out(elf, sh);
	for (i = 1; i < NR_SECS; i++) {
		scn = elf_newscn(elf);
		d = scn ? elf_newdata(scn) : NULL;
		if (!d)
			goto out;
		d->d_type = type[i];
		d->d_version = EV_CURRENT;
		d->d_align = sh[i].sh_addralign;
		d->d_size = sh[i].sh_size;
		d->d_buf = buf[i];
		sh[i].sh_name = (uint32_t)sec_name[i];
		if (!gelf_update_shdr(scn, &sh[i]))
			goto out;
		if (i == SEC_SYMTAB) {
			size_t j;

			for (j = 0; j <= o->nr_syms; j++)
				if (!gelf_update_sym(d, (int)j, &syms[j]))
					goto out;
		}
	}
	if (!gelf_getehdr(elf, &eh))
		goto out;
	eh.e_ident[EI_DATA] = o->elf_data;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_REL;
	eh.e_machine = o->machine;
	eh.e_version = EV_CURRENT;
	eh.e_shoff = off;
	eh.e_shstrndx = SEC_SHSTRTAB;
	if (!gelf_update_ehdr(elf, &eh))
		goto out;
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	err = elf_update(elf, ELF_C_WRITE) < 0 ? -EIO : 0;
out:
	elf_end(elf);
	free(symtab);
	free(syms);
	free(strtab);
	return err;
}

SECMAP_EXPORT int secmap_perf_maps_write_object(const struct secmap_perf_maps *pm, size_t idx,
						int fd)
{
	int err;

	if (!pm || idx >= secmap_perf_maps_nr_objects(pm) || fd < 0)
		return libsecmap_err(-EINVAL);
	err = write_elf(libsecmap_perf_maps_obj(pm, idx), fd);
	return err ? libsecmap_err(err) : 0;
}

SECMAP_EXPORT int secmap_perf_maps_object_image(const struct secmap_perf_maps *pm, size_t idx,
						void **image, size_t *len)
{
	struct stat st;
	uint8_t *buf = NULL;
	int fd, err;

	if (!pm || idx >= secmap_perf_maps_nr_objects(pm) || !image || !len)
		return libsecmap_err(-EINVAL);
	*image = NULL;
	*len = 0;
	fd = libsecmap_scratch_file(NULL);
	if (fd < 0)
		return libsecmap_err(fd);
	err = write_elf(libsecmap_perf_maps_obj(pm, idx), fd);
	if (!err && fstat(fd, &st) < 0)
		err = -errno;
	if (!err && !(buf = malloc(st.st_size ? (size_t)st.st_size : 1)))
		err = -ENOMEM;
	if (!err)
		err = libsecmap_pread_all(fd, buf, (size_t)st.st_size, 0);
	close(fd);
	if (err) {
		free(buf);
		return libsecmap_err(err);
	}
	*image = buf;
	*len = (size_t)st.st_size;
	return 0;
}

/*
 * mkdir -p of @path's directory part below @top (which exists or is made
 * too), on a copy: @path may be a shared handle's, read by other threads.
 */
static int make_dirs(const char *path, size_t top_len)
{
	char *copy = strdup(path), *p;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (p = copy + top_len; (p = strchr(p + 1, '/')); ) {
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST) {
			err = -errno;
			break;
		}
		*p = '/';
	}
	free(copy);
	return err;
}

/* Names the temporary links of one process apart, whatever thread installs. */
static unsigned int link_serial;

/* Write @o at @o->path, replacing what was there only once it is whole. */
static int install_object(const char *dir, const struct pm_object *o)
{
	char sid[2 * PM_BUILD_ID_LEN + 1], *tmp = NULL, *link = NULL, *target = NULL;
	struct libsecmap_out out;
	int err;

	secmap_build_id_str(o->id, sizeof(o->id), sid, sizeof(sid));
	err = make_dirs(o->path, 0);
	if (!err)
		err = libsecmap_out_open(&out, o->path, NULL);
	if (err)
		return err;
	err = libsecmap_out_finish(&out, write_elf(o, out.fd), NULL);
	if (err)
		return err;
	/* .build-id/ab/cdef... -> ../../.secmap/ID/mod.ko, as perf's own links go up two. */
	if (asprintf(&link, "%s/.build-id/%.2s/%s", dir, sid, sid + 2) < 0 ||
	    asprintf(&target, "../../%s", o->rel) < 0 ||
	    asprintf(&tmp, "%s.tmp-%d-%u", link, (int)getpid(),
		     __atomic_fetch_add(&link_serial, 1, __ATOMIC_RELAXED)) < 0) {
		err = -ENOMEM;
		goto out;
	}
	err = make_dirs(link, strlen(dir));
	if (!err) {
		unlink(tmp);
		if (symlink(target, tmp) < 0 || rename(tmp, link) < 0)
			err = -errno;
	}
out:
	if (err && tmp)
		unlink(tmp);
	free(tmp);
	free(link);
	free(target);
	return err;
}

SECMAP_EXPORT int secmap_perf_maps_install(const struct secmap_perf_maps *pm)
{
	size_t i;
	int err = 0;

	if (!pm)
		return libsecmap_err(-EINVAL);
	for (i = 0; !err && i < secmap_perf_maps_nr_objects(pm); i++)
		err = install_object(libsecmap_perf_maps_dir(pm), libsecmap_perf_maps_obj(pm, i));
	return err ? libsecmap_err(err) : 0;
}
