/* The PNG decoder of png_decode.h, written from the PNG specification (ISO/IEC 15948): chunks,
 * IHDR, the IDAT stream inflated by zlib, then the five scanline filters undone. */
#include "png_decode.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

typedef struct {
    uint32_t width, height;
    int channels;           /* 3 (RGB) or 4 (RGBA) */
    unsigned char *idat;    /* the IDAT chunks' data, concatenated */
    size_t idat_len;
} png_raw;

/* IHDR: 8-bit RGB or RGBA, deflate, standard filters, not interlaced; 0 when so. */
static int read_ihdr(const unsigned char *d, uint32_t len, png_raw *raw, char *err, size_t el)
{
    if (len != 13)
        return snprintf(err, el, "IHDR of %u bytes", len), -1;
    raw->width = be32(d), raw->height = be32(d + 4);
    raw->channels = d[9] == 2 ? 3 : d[9] == 6 ? 4 : 0;
    if (d[8] != 8 || !raw->channels || d[10] || d[11] || d[12])
        return snprintf(err, el, "unsupported PNG: depth %d, colour type %d, interlace %d",
                        d[8], d[9], d[12]), -1;
    if (!raw->width || !raw->height || raw->width > 16384 || raw->height > 16384)
        return snprintf(err, el, "unsupported size %ux%u", raw->width, raw->height), -1;
    return 0;
}

/* Walks the chunks after the signature: IHDR first, IDATs gathered, IEND last. */
static int read_chunks(const unsigned char *p, const unsigned char *end, png_raw *raw,
                       char *err, size_t el)
{
    for (int first = 1;; first = 0) {
        if (end - p < 12)
            return snprintf(err, el, "truncated chunk"), -1;
        uint32_t len = be32(p);
        const unsigned char *type = p + 4, *data = p + 8;
        if (len > (size_t)(end - p) - 12)
            return snprintf(err, el, "chunk longer than the file"), -1;
        if (crc32(crc32(0, NULL, 0), type, len + 4) != be32(data + len))
            return snprintf(err, el, "bad CRC in chunk %.4s", type), -1;
        if (first != !memcmp(type, "IHDR", 4))
            return snprintf(err, el, "IHDR is not the first chunk"), -1;
        if (first && read_ihdr(data, len, raw, err, el) < 0)
            return -1;
        if (!memcmp(type, "IEND", 4))
            return 0;
        if (!memcmp(type, "IDAT", 4)) {
            unsigned char *grown = realloc(raw->idat, raw->idat_len + len + 1);
            if (!grown)
                return snprintf(err, el, "out of memory"), -1;
            memcpy(grown + raw->idat_len, data, len);
            raw->idat = grown, raw->idat_len += len;
        }
        p = data + len + 4;
    }
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes the filter of each scanline in place: row y's bytes follow its filter type byte. */
static int unfilter(unsigned char *buf, const png_raw *raw, char *err, size_t el)
{
    size_t bpp = (size_t)raw->channels, stride = raw->width * bpp;
    for (uint32_t y = 0; y < raw->height; y++) {
        unsigned char *row = buf + y * (stride + 1) + 1;
        const unsigned char *up = y ? row - (stride + 1) : NULL;
        int type = row[-1];
        if (type > 4)
            return snprintf(err, el, "filter type %d on row %u", type, y), -1;
        for (size_t i = 0; i < stride; i++) {
            int a = i >= bpp ? row[i - bpp] : 0, b = up ? up[i] : 0;
            int c = up && i >= bpp ? up[i - bpp] : 0;
            int pred = type == 1 ? a : type == 2 ? b : type == 3 ? (a + b) / 2
                     : type == 4 ? paeth(a, b, c) : 0;
            row[i] = (unsigned char)(row[i] + pred);
        }
    }
    return 0;
}

/* The unfiltered scanlines as RGB pixels into img. */
static int to_rgb(const unsigned char *buf, const png_raw *raw, png_image *img)
{
    size_t stride = raw->width * (size_t)raw->channels;
    img->width = (int)raw->width, img->height = (int)raw->height;
    img->rgb = malloc((size_t)raw->width * raw->height * 3);
    if (!img->rgb)
        return -1;
    for (size_t y = 0; y < raw->height; y++)
        for (size_t x = 0; x < raw->width; x++)
            memcpy(img->rgb + (y * raw->width + x) * 3,
                   buf + y * (stride + 1) + 1 + x * (size_t)raw->channels, 3);
    return 0;
}

/* Contract in png_decode.h. */
int png_decode(const unsigned char *data, size_t n, png_image *img, char *err, size_t errlen)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    png_raw raw = {0};
    memset(img, 0, sizeof *img);
    if (n < 8 || memcmp(data, sig, 8) != 0)
        return snprintf(err, errlen, "not a PNG (no signature)"), -1;
    if (read_chunks(data + 8, data + n, &raw, err, errlen) < 0) {
        free(raw.idat);
        return -1;
    }
    uLongf want = (uLongf)raw.height * (raw.width * (uLongf)raw.channels + 1), got = want;
    unsigned char *buf = malloc(want);
    int rc = -1;
    if (!buf)
        snprintf(err, errlen, "out of memory");
    else if (uncompress(buf, &got, raw.idat, raw.idat_len) != Z_OK || got != want)
        snprintf(err, errlen, "image data does not inflate to %lu bytes", (unsigned long)want);
    else if (unfilter(buf, &raw, err, errlen) == 0 && (rc = to_rgb(buf, &raw, img)) < 0)
        snprintf(err, errlen, "out of memory");
    free(buf);
    free(raw.idat);
    return rc;
}

/* Contract in png_decode.h. */
long png_count_colour(const png_image *img, int r, int g, int b, int tol)
{
    long count = 0;
    for (long i = 0; i < (long)img->width * img->height; i++) {
        const unsigned char *p = img->rgb + i * 3;
        count += abs(p[0] - r) <= tol && abs(p[1] - g) <= tol && abs(p[2] - b) <= tol;
    }
    return count;
}
