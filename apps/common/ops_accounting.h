/* What both builds of comm_ops share: the per-rank clock and byte counters, and the one way
 * a verb fails. */
#ifndef COMMPRESS_APPS_OPS_ACCOUNTING_H
#define COMMPRESS_APPS_OPS_ACCOUNTING_H

#include <stdint.h>

void ops_account(double seconds, uint64_t raw_bytes, uint64_t sent_bytes);
void ops_account_predicted(double seconds);
void ops_set_sent_known(int known);
/* Prints "<verb>: <message>" and aborts the job: a failed transfer leaves the application's
 * state undefined on every rank, so no rank may go on. */
void ops_fail(const char* verb, const char* message);

#endif
