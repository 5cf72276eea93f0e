/* A small PNG decoder for the screenshot test: 8-bit RGB or RGBA, not interlaced, every filter
 * type, chunk CRCs checked (zlib inflates and sums). Enough for Chromium's screenshots; any
 * other PNG is refused with a reason, never misread. */
#ifndef CML_TESTS_PNG_DECODE_H
#define CML_TESTS_PNG_DECODE_H

#include <stddef.h>

typedef struct {
    int width, height;
    unsigned char *rgb; /* width * height pixels, 3 bytes each (alpha dropped); malloc'd */
} png_image;

/* Decodes data[0..n) into img; 0, or -1 with the reason in err. */
int png_decode(const unsigned char *data, size_t n, png_image *img, char *err, size_t errlen);

/* How many pixels of img are within tol of (r, g, b) on every channel. */
long png_count_colour(const png_image *img, int r, int g, int b, int tol);

#endif /* CML_TESTS_PNG_DECODE_H */
