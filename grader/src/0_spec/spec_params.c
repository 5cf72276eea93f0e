/* spec, a case's parameters ("n=4097,rows=64,time"): the one reader of `case`, `draw`'s drawn
 * cases, `ncu_case` and `sanitize_case` (spec_parse.h). Kept in spec_task.c, it made
 * spec_task.c and spec_draw.c, and spec_task.c and spec_technique.c, call each other. */
#include "spec_parse.h"

#include <stdio.h>
#include <string.h>

#include "util.h" /* cml_parse_u64 */

/* The struct field for a case key the grader reads, or NULL for a key kept only as text. */
static uint64_t *known_param(cml_case_spec *c, const char *key)
{
    static const char *const KEYS[] = {"n", "rows", "cols", "offset", "stride"};
    uint64_t *fields[] = {&c->n, &c->rows, &c->cols, &c->offset, &c->stride};
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (strcmp(KEYS[i], key) == 0)
            return fields[i];
    return NULL;
}

/* Whether `text` ("k=v,k2=v2") already has `key`. */
static int has_key(const char *text, const char *key)
{
    size_t k = strlen(key);
    for (const char *s = text; *s; s += strcspn(s, ","), s += (*s == ','))
        if (strncmp(s, key, k) == 0 && s[k] == '=')
            return 1;
    return 0;
}

/* One comma-separated item of a case: `time` or key=value (appended to c->text). */
static int case_item(spec_parser *p, cml_case_spec *c, char *item)
{
    if (strcmp(item, "time") == 0) {
        c->timed = 1;
        return 0;
    }
    char *eq = strchr(item, '=');
    if (!eq || eq == item || eq[1] == '\0')
        return spec_fail(p, "case: '%s' is not key=value", item);
    *eq = '\0';
    const char *key = item, *value = eq + 1;
    if (key[strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_")] != '\0' ||
        value[strspn(value, SPEC_ID_CHARS "+")] != '\0')
        return spec_fail(p, "case: '%s=%s': keys are lower-case words, values plain", key, value);
    if (has_key(c->text, key))
        return spec_fail(p, "case: '%s' given twice", key);
    uint64_t *field = known_param(c, key);
    if (field && cml_parse_u64(value, field) != 0)
        return spec_fail(p, "case: %s must be a whole number, not '%s'", key, value);
    size_t used = strlen(c->text);
    int w = snprintf(c->text + used, sizeof c->text - used, "%s%s=%s", used ? "," : "", key,
                     value);
    if (w < 0 || (size_t)w >= sizeof c->text - used)
        return spec_fail(p, "case is too long (at most %zu characters)", sizeof c->text - 1);
    return 0;
}

/* Contract in spec_parse.h. */
int spec_case_params(spec_parser *p, cml_case_spec *c, char *params)
{
    char *save = NULL;
    for (char *item = strtok_r(params, ",", &save); item; item = strtok_r(NULL, ",", &save))
        if (case_item(p, c, item) != 0)
            return -1;
    return 0;
}
