/* feedback.html as a browser draws it: headless Chromium screenshots the page of the feedback
 * fixture, png_decode.c reads the PNG, and the three bar colours must be there; without the
 * chart they must not (so the check cannot pass on any page). The PNG decoder's own tests run
 * everywhere; the Chromium ones (tag chromium) only where a chromium binary is found, and are
 * counted as skipped otherwise. CML_SCREENSHOT_OUT=path keeps the chart's screenshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "feedback_fixture.h"
#include "helpers.h"
#include "png_decode.h"
#include "report.h"
#include "suites.h"
#include "util.h"

#define CHROMIUM_TESTS 2
#define BAR_PIXELS 200 /* more than a legend swatch (144): only bars reach it */

/* The Chromium binary on PATH (chromium, else chromium-browser) into path; 0 when found. */
static int find_browser(char *path, size_t len)
{
    static const char *const names[] = {"chromium", "chromium-browser"};
    const char *env = getenv("PATH");
    for (int i = 0; i < 2; i++) {
        char dirs[4096];
        snprintf(dirs, sizeof dirs, "%s", env ? env : "/usr/bin:/bin");
        for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save))
            if (snprintf(path, len, "%s/%s", d, names[i]) < (int)len && access(path, X_OK) == 0)
                return 0;
    }
    return -1;
}

/* ---- a tiny PNG encoder for the decoder's tests: row y uses filter y % 5 ---- */
static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

static size_t chunk(unsigned char *out, const char *type, const unsigned char *d, uint32_t n)
{
    put32(out, n);
    memcpy(out + 4, type, 4);
    memcpy(out + 8, d, n);
    put32(out + 8 + n, (uint32_t)crc32(crc32(0, NULL, 0), out + 4, n + 4));
    return n + 12;
}

static int predict(int type, int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return type == 1 ? a : type == 2 ? b : type == 3 ? (a + b) / 2
         : type == 4 ? (pa <= pb && pa <= pc ? a : pb <= pc ? b : c) : 0;
}

/* A w x 10 PNG of `ch` channels from pix into out (4096 bytes); its length. ihdr_patch
 * overwrites IHDR byte 8 + k (k = ihdr_patch >> 8) with its low byte when non-zero. */
static size_t encode(const unsigned char *pix, int w, int ch, unsigned char *out, int ihdr_patch)
{
    unsigned char raw[10 * (1 + 8 * 4)], z[2048], ihdr[13] = {0};
    size_t stride = (size_t)w * ch;
    for (int y = 0; y < 10; y++) {
        unsigned char *row = raw + y * (stride + 1);
        row[0] = (unsigned char)(y % 5);
        for (size_t i = 0; i < stride; i++) {
            const unsigned char *o = pix + y * stride;
            int a = i >= (size_t)ch ? o[i - ch] : 0, b = y ? o[i - stride] : 0;
            int c = y && i >= (size_t)ch ? o[i - stride - ch] : 0;
            row[1 + i] = (unsigned char)(o[i] - predict(y % 5, a, b, c));
        }
    }
    uLongf zn = sizeof z;
    ck_assert_int_eq(compress(z, &zn, raw, 10 * (stride + 1)), Z_OK);
    put32(ihdr, (uint32_t)w), put32(ihdr + 4, 10), ihdr[8] = 8, ihdr[9] = ch == 4 ? 6 : 2;
    if (ihdr_patch)
        ihdr[8 + (ihdr_patch >> 8)] = (unsigned char)ihdr_patch;
    memcpy(out, "\x89PNG\r\n\x1a\n", 8);
    size_t n = 8 + chunk(out + 8, "IHDR", ihdr, 13);
    n += chunk(out + n, "IDAT", z, (uint32_t)zn);
    return n + chunk(out + n, "IEND", NULL, 0);
}

/* Pixels that exercise every predictor: a gradient with noise. */
static void pattern(unsigned char *pix, int n)
{
    for (int i = 0; i < n; i++)
        pix[i] = (unsigned char)(i * 37 + (i * i) % 251);
}

static void decodes_back(int ch)
{
    unsigned char pix[10 * 8 * 4], png[4096];
    char err[128];
    png_image img;
    pattern(pix, 10 * 8 * ch);
    ck_assert_msg(png_decode(png, encode(pix, 8, ch, png, 0), &img, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_int_eq(img.width, 8);
    for (int i = 0; i < 80; i++)
        ck_assert_msg(memcmp(img.rgb + i * 3, pix + i * ch, 3) == 0, "pixel %d differs", i);
    free(img.rgb);
}

START_TEST(png_decoder_undoes_all_five_filters_rgba)
{
    decodes_back(4);
}
END_TEST

START_TEST(png_decoder_undoes_all_five_filters_rgb)
{
    decodes_back(3);
}
END_TEST

START_TEST(png_decoder_refuses_what_it_cannot_read)
{
    unsigned char pix[10 * 8 * 4] = {0}, png[4096];
    char err[128];
    png_image img;
    const int patches[] = {4 << 8 | 1 /* interlaced */, 16 /* 16-bit */, 1 << 8 | 3 /* palette */};
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(png_decode(png, encode(pix, 8, 4, png, patches[i]), &img, err,
                                    sizeof err), -1);
    size_t n = encode(pix, 8, 4, png, 0);
    png[45] ^= 1; /* inside IDAT's data: its CRC no longer matches */
    ck_assert_int_eq(png_decode(png, n, &img, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "CRC"));
    ck_assert_int_eq(png_decode(png, 20, &img, err, sizeof err), -1);
}
END_TEST

/* Renders the page of g in Chromium and decodes its screenshot into img. */
static void screenshot(const cml_grading *g, png_image *img)
{
    char dir[64], html[128], shot[128], url[160], prof[160], arg[160], bin[4096], err[160];
    size_t len;
    ck_assert_int_eq(find_browser(bin, sizeof bin), 0);
    test_tmpdir(dir, sizeof dir);
    snprintf(html, sizeof html, "%s/feedback.html", dir);
    snprintf(shot, sizeof shot, "%s/shot.png", dir);
    snprintf(url, sizeof url, "file://%s", html);
    snprintf(prof, sizeof prof, "--user-data-dir=%s/profile", dir);
    snprintf(arg, sizeof arg, "--screenshot=%s", shot);
    ck_assert_int_eq(cml_report_html(html, g), 0);
    char *argv[] = {bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    prof, arg, "--window-size=1200,1600", url, NULL};
    char *out = NULL;
    int rc = test_exec(argv, 60, &out);
    unsigned char *png = (unsigned char *)cml_read_text(shot, 64u << 20, &len);
    ck_assert_msg(png != NULL, "chromium wrote no screenshot (exit %d):\n%s", rc, out);
    ck_assert_msg(png_decode(png, len, img, err, sizeof err) == 0, "%s", err);
    const char *keep = getenv("CML_SCREENSHOT_OUT");
    if (keep && g->labs[0].tasks[0].timed)
        ck_assert_int_eq(cml_write_file(keep, png, len), 0);
    free(png);
    free(out);
    cml_rmtree(dir);
}

/* Whether img shows bars of all three chart colours (report.h gives their RGB values). */
static int bars_seen(const png_image *img)
{
    return png_count_colour(img, 0x00, 0x72, 0xb2, 3) >= BAR_PIXELS &&
           png_count_colour(img, 0xe6, 0x9f, 0x00, 3) >= BAR_PIXELS &&
           png_count_colour(img, 0x00, 0x9e, 0x73, 3) >= BAR_PIXELS;
}

START_TEST(screenshot_shows_the_three_bar_colours)
{
    cml_grading *g = feedback_fixture();
    png_image img;
    screenshot(g, &img);
    ck_assert_msg(bars_seen(&img), "bars: %ld student, %ld reference, %ld bound pixels",
                  png_count_colour(&img, 0x00, 0x72, 0xb2, 3),
                  png_count_colour(&img, 0xe6, 0x9f, 0x00, 3),
                  png_count_colour(&img, 0x00, 0x9e, 0x73, 3));
    free(img.rgb);
    free(g);
}
END_TEST

START_TEST(screenshot_check_fails_without_the_chart)
{
    cml_grading *g = feedback_fixture();
    png_image img;
    for (int i = 0; i < g->nlabs; i++)
        for (int k = 0; k < g->labs[i].ntasks; k++)
            g->labs[i].tasks[k].timed = 0; /* no timings: no chart */
    screenshot(g, &img);
    ck_assert_int_gt(png_count_colour(&img, 0x22, 0x22, 0x22, 3), 500); /* the text is drawn */
    ck_assert(!bars_seen(&img));
    free(img.rgb);
    free(g);
}
END_TEST

/* Contract in suites.h. */
int screenshot_tests_skipped(char *reason, size_t len)
{
    char bin[4096];
    if (find_browser(bin, sizeof bin) == 0)
        return 0;
    snprintf(reason, len, "neither chromium nor chromium-browser is on PATH");
    return CHROMIUM_TESTS;
}

/* The screenshot suite: the decoder always, the browser where there is one. */
Suite *screenshot_suite(void)
{
    char bin[4096];
    Suite *s = suite_create("screenshot");
    TCase *png = tcase_create("png");
    tcase_add_test(png, png_decoder_undoes_all_five_filters_rgba);
    tcase_add_test(png, png_decoder_undoes_all_five_filters_rgb);
    tcase_add_test(png, png_decoder_refuses_what_it_cannot_read);
    suite_add_tcase(s, png);
    if (find_browser(bin, sizeof bin) == 0) {
        TCase *browser = tcase_create("chromium");
        tcase_set_tags(browser, "chromium");
        tcase_set_timeout(browser, 120);
        tcase_add_test(browser, screenshot_shows_the_three_bar_colours);
        tcase_add_test(browser, screenshot_check_fails_without_the_chart);
        suite_add_tcase(s, browser);
    }
    return s;
}
