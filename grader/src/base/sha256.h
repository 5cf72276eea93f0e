/* SHA-256 (FIPS 180-4), for what must not change unnoticed between the build and a run: the
 * reference binary and the technique evidence. FNV-1a (util.h) is enough for cache keys, where
 * nobody gains from a collision; here a submission would gain, so the hash must resist one. */
#ifndef CML_SHA256_H
#define CML_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define CML_SHA256_HEX 65 /* 64 hex digits and the terminator */

typedef struct {
    uint32_t h[8];
    uint64_t len;      /* bytes hashed so far */
    uint8_t buf[64];
    size_t used;
} cml_sha256_ctx;

void cml_sha256_init(cml_sha256_ctx *c);
void cml_sha256_update(cml_sha256_ctx *c, const void *data, size_t n);
/* The digest as 64 lower-case hex digits. */
void cml_sha256_hex(cml_sha256_ctx *c, char hex[CML_SHA256_HEX]);

/* The digest of a file's bytes into hex; 0, or -1 when it cannot be read (hex then empty). */
int cml_sha256_file(const char *path, char hex[CML_SHA256_HEX]);

#endif /* CML_SHA256_H */
