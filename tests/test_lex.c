/* The one reader of source text (grader/src/base/lex.c): comments never count, literals never
 * hide code, whatever ordinary C++ a student writes. Added to the technique suite. */
#include <check.h>
#include <string.h>

#include "lex.h"
#include "suites.h"

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

START_TEST(comments_are_blanked_and_strings_kept)
{
    char src[] = "a(); // cudaMemcpy\n/* cudaMemcpy\n */ b(\"//x\", '/');\nc(); /* x */ d();\n";
    size_t len = strlen(src);
    cml_blank_code(src, CML_BLANK_COMMENTS);
    ck_assert_ptr_null(strstr(src, "cudaMemcpy"));
    ck_assert_ptr_nonnull(strstr(src, "b(\"//x\", '/');"));
    ck_assert_ptr_nonnull(strstr(src, "d();"));
    ck_assert_int_eq(count_lines(src), 4);
    ck_assert_uint_eq(strlen(src), len);
}
END_TEST

/* 4'000'000'000ull: the quotes are digit separators, not a character literal that would
 * swallow the code after it. */
START_TEST(digit_separators_do_not_open_a_literal)
{
    char src[] = "size_t n = 4'000'000'000ull; cudaMemcpy(a, b, n); int h = 0x7f'ff;\n"
                 "char c = u8'x'; cudaMemset(a, 0, n);\n";
    cml_blank_code(src, CML_BLANK_COMMENTS | CML_BLANK_LITERALS);
    ck_assert_ptr_nonnull(strstr(src, "cudaMemcpy(a, b, n);"));
    ck_assert_ptr_nonnull(strstr(src, "0x7f'ff;"));
    ck_assert_ptr_nonnull(strstr(src, "u8' ';"));
    ck_assert_ptr_nonnull(strstr(src, "cudaMemset(a, 0, n);"));
}
END_TEST

/* A raw string may hold quotes, comment openers and newlines: all of it is the literal. */
START_TEST(raw_strings_are_one_literal)
{
    char src[] = "auto s = R\"x(a \" // /* cudaMemcpy\n)\" )x\"; cudaMemset(p, 0, 4); // done\n";
    cml_blank_code(src, CML_BLANK_COMMENTS | CML_BLANK_LITERALS);
    ck_assert_ptr_null(strstr(src, "cudaMemcpy"));
    ck_assert_ptr_nonnull(strstr(src, "cudaMemset(p, 0, 4);"));
    ck_assert_ptr_null(strstr(src, "done"));
    ck_assert_int_eq(count_lines(src), 2);
}
END_TEST

/* A // comment ending in a backslash continues on the next line (a line splice). */
START_TEST(a_spliced_line_comment_continues)
{
    char src[] = "x(); // a comment \\\ncudaMemcpy(a, b, n);\ny();\n";
    cml_blank_code(src, CML_BLANK_COMMENTS);
    ck_assert_ptr_null(strstr(src, "cudaMemcpy"));
    ck_assert_ptr_nonnull(strstr(src, "y();"));
}
END_TEST

START_TEST(a_byte_order_mark_is_not_code)
{
    char src[] = "\xEF\xBB\xBF#line 3 \"x.h\"\n";
    cml_blank_code(src, CML_BLANK_COMMENTS);
    ck_assert(cml_is_directive(src, "line"));
    ck_assert_int_eq(src[0], ' ');
}
END_TEST

/* Directives as the compiler sees them: a comment line that starts with '#' is not one. */
START_TEST(directives_are_found_in_code_only)
{
    char src[] = "/*\n # 1 load the tile\n #line up the warps\n*/\n  #  line 7 \"h.h\"\n# 12\n"
                 "#pragma unroll\n#include \"a.h\"\n#lineup\n";
    cml_blank_code(src, CML_BLANK_COMMENTS | CML_BLANK_LITERALS);
    int directives[16] = {0}, k = 0;
    for (const char *l = src; *l && k < 16; l = strchr(l, '\n') + 1)
        directives[k++] = cml_is_directive(l, "line");
    ck_assert_int_eq(directives[1] + directives[2], 0); /* inside the comment */
    ck_assert_int_eq(directives[4] + directives[5], 2);
    ck_assert_int_eq(directives[6] + directives[7] + directives[8], 0);
    ck_assert(cml_is_directive("#pragma unroll\n", "pragma"));
}
END_TEST

/* Contract in suites.h. */
void lex_add(Suite *s)
{
    TCase *tc = tcase_create("lex");
    tcase_add_test(tc, comments_are_blanked_and_strings_kept);
    tcase_add_test(tc, digit_separators_do_not_open_a_literal);
    tcase_add_test(tc, raw_strings_are_one_literal);
    tcase_add_test(tc, a_spliced_line_comment_continues);
    tcase_add_test(tc, a_byte_order_mark_is_not_code);
    tcase_add_test(tc, directives_are_found_in_code_only);
    suite_add_tcase(s, tc);
}
