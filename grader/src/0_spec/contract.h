/* A task's contract, written from its spec for its sheet (contract.c), and the sheet's copy
 * of it kept in step (contract_sheet.c). Depends on cml.h only. */
#ifndef CML_CONTRACT_H
#define CML_CONTRACT_H

#include "cml.h"

#include <stddef.h>

/* The block the sheet shows for task t of lab: its inputs (cases and draws), how its output is
 * checked, its technique evidence and its speed rule, between an opening and an end marker.
 * Written into buf (len bytes, truncated if need be). */
void cml_contract_text(const cml_lab_spec *lab, const cml_task_spec *t, char *buf, size_t len);

/* The sheet text with every task's block as its spec writes it: a block already there is
 * replaced, a missing one goes at the end of its task's section (from the heading "### <id> "
 * to the next heading). Returns a malloc'd text, or NULL (why in err) when a task has no
 * heading in the sheet. *changed: how many blocks differed or were missing. */
char *cml_contract_sheet(const cml_lab_spec *lab, const char *sheet, int *changed, char *err,
                         size_t errlen);

#endif
