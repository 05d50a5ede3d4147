// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A build-id, read and written once for the whole of secmap: the note
 * parser behind /sys/module/NAME/notes, /sys/kernel/notes and a .ko's
 * .note.gnu.build-id, and the text form the tool prints and the
 * .build-id/ trees (perf's cache, debuginfo) are named by.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

#define NT_GNU_BUILD_ID 3

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));	/* notes reach us in the host's byte order */
	return v;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

int libsecmap_parse_build_id_notes(const uint8_t *buf, size_t len, uint8_t *id, size_t *id_len)
{
	size_t off = 0;

	while (off < len) {
		uint32_t namesz, descsz, type;
		size_t name_off, desc_off, next;

		if (len - off < 12)
			return -EPROTO;
		namesz = get_u32(buf + off);
		descsz = get_u32(buf + off + 4);
		type = get_u32(buf + off + 8);
		name_off = off + 12;
		if (namesz > len - name_off)
			return -EPROTO;
		desc_off = name_off + align4(namesz);
		if (desc_off > len || descsz > len - desc_off)
			return -EPROTO;
		next = desc_off + align4(descsz);
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(buf + name_off, "GNU", 4)) {
			if (!descsz || descsz > SECMAP_BUILD_ID_MAX)
				return -EPROTO;
			memcpy(id, buf + desc_off, descsz);
			*id_len = descsz;
			return 0;
		}
		if (next <= off)
			return -EPROTO;
		off = next;
	}
	return 0;
}

SECMAP_EXPORT int secmap_build_id_str(const uint8_t *id, size_t len, char *buf, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if ((len && !id) || !buf)
		return libsecmap_err(-EINVAL);
	if (!size || len > (size - 1) / 2)
		return libsecmap_err(-ENOSPC);
	for (i = 0; i < len; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 0xf];
	}
	buf[2 * len] = '\0';
	return 0;
}
