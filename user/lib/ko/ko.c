// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libsecmap: open a module file (.ko, .ko.xz, .ko.zst, .ko.gz), decompress
 * it in memory and answer what the kernel cannot: each section's size, file
 * offset, ELF flags and symbol count, and the file's build-id.
 *
 * Everything read from the file is untrusted: the decompressors are capped,
 * and every section header is checked against the image before libelf is
 * asked for any section data, so a corrupt or truncated file is -EINVAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>	/* ZSTD_getErrorCode() */

#include "internal.h"

/*
 * Largest module accepted, compressed or not. The biggest in-tree modules
 * (amdgpu, xe, with debug info) stay well under it; anything larger is more
 * likely a decompression bomb than a module.
 */
#define KO_MAX_SIZE	(512UL << 20)
/* What the xz decoder may allocate (dictionary); xz -9 needs 64 MiB. */
#define KO_XZ_MEMLIMIT	(256ULL << 20)

/* Exposed (hidden visibility) for tests/ko_test.c, which passes a small @cap. */
int libsecmap_ko_decompress(const uint8_t *in, size_t in_len, size_t cap,
			    uint8_t **out, size_t *out_len);

struct secmap_ko {
	uint8_t *image;		/* the decompressed ELF, which @elf reads from */
	size_t size;
	Elf *elf;
	size_t shstrndx;
	size_t nr_sections;
	size_t *nr_symbols;	/* per section index: STT_FUNC/STT_OBJECT defined in it */
	uint8_t build_id[SECMAP_BUILD_ID_MAX];
	size_t build_id_len;		/* 0: none */
};

enum ko_format { KO_ELF, KO_XZ, KO_ZSTD, KO_GZIP, KO_UNSUPPORTED, KO_UNKNOWN };

static enum ko_format ko_format(const uint8_t *p, size_t len)
{
	static const uint8_t xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
	static const uint8_t zstd[] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const uint8_t gz[] = { 0x1f, 0x8b };
	static const uint8_t bz2[] = { 'B', 'Z', 'h' };
	static const uint8_t lz4[] = { 0x04, 0x22, 0x4d, 0x18 };

#define HAS_MAGIC(m) (len >= sizeof(m) && !memcmp(p, m, sizeof(m)))
	if (len >= SELFMAG && !memcmp(p, ELFMAG, SELFMAG))
		return KO_ELF;
	if (HAS_MAGIC(xz))
		return KO_XZ;
	if (HAS_MAGIC(zstd))
		return KO_ZSTD;
	if (HAS_MAGIC(gz))
		return KO_GZIP;
	/* Compressors people use, that the kernel's module loader does not. */
	if (HAS_MAGIC(bz2) || HAS_MAGIC(lz4))
		return KO_UNSUPPORTED;
#undef HAS_MAGIC
	return KO_UNKNOWN;
}

/*
 * Output buffer of the decompressors: grows by doubling, never past @cap
 * bytes of content. One spare byte beyond @cap lets a stream that is
 * exactly @cap long finish while one that is longer is caught (-EFBIG).
 */
struct outbuf {
	uint8_t *buf;
	size_t len;	/* bytes produced */
	size_t alloc;
	size_t cap;
};

static int outbuf_grow(struct outbuf *o, size_t hint)
{
	size_t want = o->alloc ? o->alloc * 2 : hint;
	uint8_t *p;

	if (o->alloc >= o->cap + 1)
		return -EFBIG;
	if (want < 64 * 1024)
		want = 64 * 1024;
	if (want > o->cap + 1 || want < o->alloc)
		want = o->cap + 1;
	p = realloc(o->buf, want);
	if (!p)
		return -ENOMEM;
	o->buf = p;
	o->alloc = want;
	return 0;
}

static int xz_decompress(const uint8_t *in, size_t in_len, struct outbuf *o)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret ret;
	int err = 0;

	/* CONCATENATED: accept what "xz -d" accepts (streams, padding). */
	ret = lzma_stream_decoder(&s, KO_XZ_MEMLIMIT, LZMA_CONCATENATED);
	if (ret != LZMA_OK)
		return ret == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
	s.next_in = in;
	s.avail_in = in_len;
	for (;;) {
		if (o->len == o->alloc) {
			err = outbuf_grow(o, in_len * 4);
			if (err)
				break;
		}
		s.next_out = o->buf + o->len;
		s.avail_out = o->alloc - o->len;
		ret = lzma_code(&s, LZMA_FINISH);
		o->len = o->alloc - s.avail_out;
		if (ret == LZMA_STREAM_END)
			break;
		if (ret == LZMA_OK)
			continue;
		switch (ret) {
		case LZMA_MEM_ERROR:
			err = -ENOMEM;
			break;
		case LZMA_MEMLIMIT_ERROR:
			err = -EFBIG;
			break;
		default:	/* FORMAT, OPTIONS, DATA, BUF (truncated) errors */
			err = -EINVAL;
			break;
		}
		break;
	}
	lzma_end(&s);
	if (!err && o->len > o->cap)
		err = -EFBIG;
	return err;
}

static int zstd_decompress(const uint8_t *in, size_t in_len, struct outbuf *o)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, in_len, 0 };
	size_t ret = 1, before_in, before_out;
	int err = 0;

	if (!ds)
		return -ENOMEM;
	/*
	 * Streaming, so the frame content size in the header (which may be
	 * absent or lie) never sizes anything; the window stays at the
	 * library's default limit (128 MiB).
	 */
	if (ZSTD_isError(ZSTD_initDStream(ds))) {
		ZSTD_freeDStream(ds);
		return -ENOMEM;
	}
	for (;;) {
		ZSTD_outBuffer ob;

		if (o->len == o->alloc) {
			err = outbuf_grow(o, in_len * 4);
			if (err)
				break;
		}
		ob.dst = o->buf;
		ob.size = o->alloc;
		ob.pos = o->len;
		before_in = ib.pos;
		before_out = ob.pos;
		ret = ZSTD_decompressStream(ds, &ob, &ib);
		o->len = ob.pos;
		if (ZSTD_isError(ret)) {
			err = ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation ? -ENOMEM :
			      -EINVAL;
			break;
		}
		/* 0: a frame ended and is flushed; another may follow in @ib. */
		if (ret == 0 && ib.pos == ib.size)
			break;
		/* Input used up mid-frame with room left to write: truncated. */
		if (ib.pos == ib.size && ob.pos < ob.size) {
			err = -EINVAL;
			break;
		}
		if (ib.pos == before_in && ob.pos == before_out && ob.pos < ob.size) {
			err = -EINVAL;
			break;
		}
	}
	ZSTD_freeDStream(ds);
	if (!err && o->len > o->cap)
		err = -EFBIG;
	return err;
}

static int gzip_decompress(const uint8_t *in, size_t in_len, struct outbuf *o)
{
	z_stream s;
	int ret, err = 0;

	/* zlib counts in uInt; KO_MAX_SIZE keeps both sides well within it. */
	if (in_len > UINT32_MAX || o->cap >= UINT32_MAX)
		return -EFBIG;
	memset(&s, 0, sizeof(s));
	/* 16 + MAX_WBITS: a gzip wrapper (header and CRC32 trailer), not zlib's. */
	ret = inflateInit2(&s, 16 + MAX_WBITS);
	if (ret != Z_OK)
		return ret == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
	s.next_in = (Bytef *)in;
	s.avail_in = in_len;
	for (;;) {
		if (o->len == o->alloc) {
			err = outbuf_grow(o, in_len * 4);
			if (err)
				break;
		}
		s.next_out = o->buf + o->len;
		s.avail_out = o->alloc - o->len;
		ret = inflate(&s, Z_NO_FLUSH);
		o->len = o->alloc - s.avail_out;
		if (ret == Z_STREAM_END) {
			/* gzip -d reads concatenated members; anything else after is ignored. */
			if (s.avail_in >= 2 && s.next_in[0] == 0x1f && s.next_in[1] == 0x8b) {
				if (inflateReset(&s) != Z_OK) {
					err = -EINVAL;
					break;
				}
				continue;
			}
			break;
		}
		if (ret == Z_OK)
			continue;
		if (ret == Z_BUF_ERROR && s.avail_out == 0)
			continue;	/* only out of room: grow and go on */
		err = ret == Z_MEM_ERROR ? -ENOMEM : -EINVAL;	/* DATA, truncated (BUF) */
		break;
	}
	inflateEnd(&s);
	if (!err && o->len > o->cap)
		err = -EFBIG;
	return err;
}

/*
 * Decompress @in according to its magic into @o, at most @o->cap bytes.
 * @o->len says how many were produced, on failure too (the work was done).
 */
static int decompress(const uint8_t *in, size_t in_len, struct outbuf *o)
{
	switch (ko_format(in, in_len)) {
	case KO_XZ:
		return xz_decompress(in, in_len, o);
	case KO_ZSTD:
		return zstd_decompress(in, in_len, o);
	case KO_GZIP:
		return gzip_decompress(in, in_len, o);
	case KO_UNSUPPORTED:
		return -ENOTSUP;
	default:
		return -EINVAL;
	}
}

/*
 * Decompress @in according to its magic into a malloc()ed *@out of at most
 * @cap bytes. -EFBIG past @cap, -EINVAL when corrupt or truncated,
 * -ENOTSUP for a compressor the kernel does not use, -EINVAL for data that
 * is not compressed at all (callers check for plain ELF first).
 */
int libsecmap_ko_decompress(const uint8_t *in, size_t in_len, size_t cap,
			    uint8_t **out, size_t *out_len)
{
	struct outbuf o = { .cap = cap };
	int err;

	*out = NULL;
	*out_len = 0;
	err = decompress(in, in_len, &o);
	if (err) {
		free(o.buf);
		return err;
	}
	*out = o.buf;
	*out_len = o.len;
	return 0;
}

/* Enough of a file's start for ko_format() to tell. */
#define KO_MAGIC_LEN 8

/*
 * The whole of @path, at most @cap bytes (-EFBIG beyond); -EINVAL, before
 * reading the rest, when its first bytes are no ELF or compressed file's:
 * the by-build-id search tries every file of a perf cache directory, and
 * there a 10 MB kallsyms copy cost more than the whole dump.
 */
static int read_file(const char *path, size_t cap, uint8_t **buf, size_t *len)
{
	uint8_t magic[KO_MAGIC_LEN];
	struct stat st;
	uint8_t *p = NULL;
	size_t n = 0, alloc;
	ssize_t r;
	int fd, err = 0;

	fd = libsecmap_open_regular_stat(path, &st);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > cap) {
		err = -EFBIG;
		goto out;
	}
	do {
		r = pread(fd, magic, sizeof(magic), 0);
	} while (r < 0 && errno == EINTR);
	if (r < 0) {
		err = -errno;
		goto out;
	}
	if (ko_format(magic, r) == KO_UNKNOWN) {
		err = -EINVAL;
		goto out;
	}
	/* st_size is a hint only: the file may change while it is read. */
	alloc = st.st_size ? (size_t)st.st_size + 1 : 4096;
	p = malloc(alloc);
	if (!p) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (n == alloc) {
			uint8_t *q;

			if (alloc > cap) {
				err = -EFBIG;
				goto out;
			}
			alloc = alloc * 2 > cap + 1 ? cap + 1 : alloc * 2;
			q = realloc(p, alloc);
			if (!q) {
				err = -ENOMEM;
				goto out;
			}
			p = q;
		}
		r = read(fd, p + n, alloc - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		if (!r)
			break;
		n += r;
	}
	if (n > cap)
		err = -EFBIG;
out:
	close(fd);
	if (err) {
		free(p);
		return err;
	}
	*buf = p;
	*len = n;
	return 0;
}

static bool range_ok(uint64_t off, uint64_t size, uint64_t total)
{
	return off <= total && size <= total - off;
}

/*
 * Walk every section header once, checking it against the image (libelf
 * checks little before handing out data), and count the symbols of each
 * section from .symtab.
 */
static int ko_index(struct secmap_ko *ko)
{
	Elf_Scn *scn = NULL, *symscn = NULL, *xndxscn = NULL;
	Elf_Data *syms, *xndx = NULL;
	GElf_Shdr shdr, symshdr = { 0 };
	size_t i, nsyms;

	if (elf_getshdrnum(ko->elf, &ko->nr_sections) || !ko->nr_sections)
		return -EINVAL;
	if (elf_getshdrstrndx(ko->elf, &ko->shstrndx) || !ko->shstrndx ||
	    ko->shstrndx >= ko->nr_sections)
		return -EINVAL;
	/* Each header is at least 64 bytes of the image: this bounds the count. */
	if (ko->nr_sections > ko->size / sizeof(Elf64_Shdr))
		return -EINVAL;

	for (i = 1; i < ko->nr_sections; i++) {
		scn = elf_getscn(ko->elf, i);
		if (!scn || !gelf_getshdr(scn, &shdr))
			return -EINVAL;
		if (shdr.sh_type != SHT_NOBITS &&
		    !range_ok(shdr.sh_offset, shdr.sh_size, ko->size))
			return -EINVAL;
		if (shdr.sh_type == SHT_SYMTAB && !symscn) {
			symscn = scn;
			symshdr = shdr;
		} else if (shdr.sh_type == SHT_SYMTAB_SHNDX && !xndxscn) {
			xndxscn = scn;
		}
	}
	/* The section names must be there for lookups to mean anything. */
	scn = elf_getscn(ko->elf, ko->shstrndx);
	if (!scn || !gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_STRTAB)
		return -EINVAL;

	ko->nr_symbols = calloc(ko->nr_sections, sizeof(*ko->nr_symbols));
	if (!ko->nr_symbols)
		return -ENOMEM;
	if (!symscn)
		return 0;	/* stripped of its symbols: counts stay 0 */
	if (!symshdr.sh_entsize || symshdr.sh_entsize != sizeof(Elf64_Sym))
		return -EINVAL;
	syms = elf_getdata(symscn, NULL);
	if (!syms)
		return -EINVAL;
	if (xndxscn) {
		xndx = elf_getdata(xndxscn, NULL);
		if (!xndx)
			return -EINVAL;
	}
	nsyms = symshdr.sh_size / symshdr.sh_entsize;
	for (i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		Elf32_Word xshndx = 0;
		size_t shndx;
		int type;

		if (!gelf_getsymshndx(syms, xndx, i, &sym, &xshndx))
			return -EINVAL;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_OBJECT)
			continue;
		shndx = sym.st_shndx == SHN_XINDEX ? xshndx : sym.st_shndx;
		if (sym.st_shndx == SHN_UNDEF ||
		    (sym.st_shndx >= SHN_LORESERVE && sym.st_shndx != SHN_XINDEX))
			continue;	/* undefined, absolute, common */
		if (shndx < ko->nr_sections)
			ko->nr_symbols[shndx]++;
	}
	return 0;
}

/*
 * The build-id in .note.gnu.build-id, through the parser sysfs' notes go
 * through: libelf hands the section over in the host's byte order, as
 * sysfs does. Absent is fine; a note that runs past its section is not.
 */
static int ko_find_build_id(struct secmap_ko *ko)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(ko->elf, scn))) {
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(ko->elf, ko->shstrndx, shdr.sh_name);
		if (!name || strcmp(name, ".note.gnu.build-id"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			return -EINVAL;
		if (!data->d_buf)
			return 0;	/* SHT_NOBITS-like: no bytes, no id */
		if (libsecmap_parse_build_id_notes(data->d_buf, data->d_size, ko->build_id,
						   &ko->build_id_len))
			return -EINVAL;
		return 0;
	}
	return 0;
}

SECMAP_EXPORT void secmap_ko_close(struct secmap_ko *ko)
{
	if (!ko)
		return;
	if (ko->elf)
		elf_end(ko->elf);
	free(ko->nr_symbols);
	free(ko->image);
	free(ko);
}

/*
 * So that a caller opening many files can bound what they decompress in
 * all (the resolver: LIBSECMAP_KO_BUDGET). A plain ELF file costs none of
 * the budget: its size is on disk, not inflated from a few KiB of a bomb.
 */
int libsecmap_ko_open_budget(const char *path, size_t budget, struct secmap_ko **kop,
			     size_t *spent)
{
	struct secmap_ko *ko;
	GElf_Ehdr ehdr;
	uint8_t *raw = NULL;
	size_t raw_len = 0;
	int err;

	*spent = 0;
	if (!kop)
		return libsecmap_err(-EINVAL);
	*kop = NULL;
	if (!path)
		return libsecmap_err(-EINVAL);
	ko = calloc(1, sizeof(*ko));
	if (!ko)
		return libsecmap_err(-ENOMEM);

	err = read_file(path, KO_MAX_SIZE, &raw, &raw_len);
	if (err)
		goto fail;
	switch (ko_format(raw, raw_len)) {
	case KO_ELF:
		ko->image = raw;
		ko->size = raw_len;
		break;
	case KO_UNKNOWN:
		free(raw);
		err = -EINVAL;
		goto fail;
	default: {
		struct outbuf o = { .cap = budget < KO_MAX_SIZE ? budget : KO_MAX_SIZE };

		err = decompress(raw, raw_len, &o);
		free(raw);
		*spent = o.len;
		/* Past the budget, not past KO_MAX_SIZE (nor xz's memory limit). */
		if (err == -EFBIG && o.len > o.cap && o.cap < KO_MAX_SIZE)
			err = -EDQUOT;
		if (err) {
			free(o.buf);
			goto fail;
		}
		ko->image = o.buf;
		ko->size = o.len;
		break;
	}
	}

	err = -EINVAL;
	/* The ELF header must be all there before libelf looks at it. */
	if (ko->size < sizeof(Elf64_Ehdr) || ko_format(ko->image, ko->size) != KO_ELF ||
	    ko->image[EI_CLASS] != ELFCLASS64)
		goto fail;
	if (elf_version(EV_CURRENT) == EV_NONE)
		goto fail;
	ko->elf = elf_memory((char *)ko->image, ko->size);
	if (!ko->elf || elf_kind(ko->elf) != ELF_K_ELF || !gelf_getehdr(ko->elf, &ehdr))
		goto fail;
	if (gelf_getclass(ko->elf) != ELFCLASS64 || ehdr.e_type != ET_REL)
		goto fail;
	err = ko_index(ko);
	if (err)
		goto fail;
	err = ko_find_build_id(ko);
	if (err)
		goto fail;
	*kop = ko;
	return 0;
fail:
	secmap_ko_close(ko);
	return libsecmap_err(err);
}

SECMAP_EXPORT int secmap_ko_open(const char *path, struct secmap_ko **kop)
{
	size_t spent;

	return libsecmap_ko_open_budget(path, SIZE_MAX, kop, &spent);
}

SECMAP_EXPORT size_t secmap_ko_image(const struct secmap_ko *ko, const uint8_t **image)
{
	if (!ko || !image)
		return 0;
	*image = ko->image;
	return ko->size;
}

SECMAP_EXPORT size_t secmap_ko_build_id(const struct secmap_ko *ko, const uint8_t **id)
{
	if (id)
		*id = ko && ko->build_id_len ? ko->build_id : NULL;
	return ko ? ko->build_id_len : 0;
}

SECMAP_EXPORT int secmap_ko_section(const struct secmap_ko *ko, const char *name,
				    struct secmap_ko_section *section)
{
	struct secmap_ko_section out = { .sz = sizeof(out) };
	size_t i, found = 0;
	GElf_Shdr shdr, first = { 0 };

	if (!ko || !name || !section || section->sz < offsetofend(struct secmap_ko_section, nr_symbols))
		return libsecmap_err(-EINVAL);
	/*
	 * Names can repeat in a relocatable (COMDAT groups): prefer the first
	 * SHF_ALLOC one, as only those are what the kernel lays out and lists.
	 */
	for (i = 1; i < ko->nr_sections; i++) {
		Elf_Scn *scn = elf_getscn(ko->elf, i);
		const char *sname;

		if (!scn || !gelf_getshdr(scn, &shdr))
			continue;
		sname = elf_strptr(ko->elf, ko->shstrndx, shdr.sh_name);
		if (!sname || strcmp(sname, name))
			continue;
		if (!found) {
			found = i;
			first = shdr;
		}
		if (shdr.sh_flags & SHF_ALLOC) {
			found = i;
			first = shdr;
			break;
		}
	}
	if (!found)
		return libsecmap_err(-ENOENT);
	out.size = first.sh_size;
	out.offset = first.sh_offset;
	out.flags = first.sh_flags;
	out.nr_symbols = ko->nr_symbols[found];
	return libsecmap_struct_out(section, 0, &out, sizeof(out));
}

/*
 * The index of the section @name would resolve to in secmap_ko_section(),
 * so that symbols and section lookups agree on duplicates.
 */
static size_t section_index(const struct secmap_ko *ko, const char *name)
{
	size_t i, found = 0;
	GElf_Shdr shdr;

	for (i = 1; i < ko->nr_sections; i++) {
		Elf_Scn *scn = elf_getscn(ko->elf, i);
		const char *sname;

		if (!scn || !gelf_getshdr(scn, &shdr))
			continue;
		sname = elf_strptr(ko->elf, ko->shstrndx, shdr.sh_name);
		if (!sname || strcmp(sname, name))
			continue;
		if (!found)
			found = i;
		if (shdr.sh_flags & SHF_ALLOC)
			return i;
	}
	return found;
}

SECMAP_EXPORT int secmap_ko_section_symbols(const struct secmap_ko *ko, const char *name,
					    struct secmap_ko_symbol **symbols, size_t *nr)
{
	Elf_Scn *scn = NULL, *symscn = NULL, *xndxscn = NULL;
	Elf_Data *syms, *xndx = NULL;
	struct secmap_ko_symbol *out;
	GElf_Shdr shdr, symshdr = { 0 };
	size_t i, n = 0, nsyms, shndx_want, strndx;

	if (!ko || !name || !symbols || !nr)
		return libsecmap_err(-EINVAL);
	*symbols = NULL;
	*nr = 0;
	shndx_want = section_index(ko, name);
	if (!shndx_want)
		return libsecmap_err(-ENOENT);
	if (!ko->nr_symbols[shndx_want])
		return 0;
	while ((scn = elf_nextscn(ko->elf, scn))) {
		if (!gelf_getshdr(scn, &shdr))
			return libsecmap_err(-EINVAL);
		if (shdr.sh_type == SHT_SYMTAB && !symscn) {
			symscn = scn;
			symshdr = shdr;
		} else if (shdr.sh_type == SHT_SYMTAB_SHNDX && !xndxscn) {
			xndxscn = scn;
		}
	}
	/* ko_index() checked the table's entry size and counted these. */
	syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!syms || (xndxscn && !(xndx = elf_getdata(xndxscn, NULL))))
		return libsecmap_err(-EINVAL);
	strndx = symshdr.sh_link;
	out = calloc(ko->nr_symbols[shndx_want], sizeof(*out));
	if (!out)
		return libsecmap_err(-ENOMEM);
	nsyms = symshdr.sh_size / symshdr.sh_entsize;
	for (i = 1; i < nsyms && n < ko->nr_symbols[shndx_want]; i++) {
		Elf32_Word xshndx = 0;
		const char *sname;
		GElf_Sym sym;
		int type;

		if (!gelf_getsymshndx(syms, xndx, i, &sym, &xshndx))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_OBJECT)
			continue;
		if (sym.st_shndx == SHN_UNDEF ||
		    (sym.st_shndx >= SHN_LORESERVE && sym.st_shndx != SHN_XINDEX))
			continue;
		if ((sym.st_shndx == SHN_XINDEX ? xshndx : sym.st_shndx) != shndx_want)
			continue;
		sname = elf_strptr(ko->elf, strndx, sym.st_name);
		if (!sname || !*sname)
			continue;
		out[n].sz = sizeof(*out);
		out[n].name = sname;
		out[n].value = sym.st_value;
		out[n].size = sym.st_size;
		out[n].func = type == STT_FUNC;
		out[n].global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
		n++;
	}
	*symbols = out;
	*nr = n;
	return 0;
}
