/* http/buf.h -- a growable byte buffer for building HTTP responses.
 *
 * Responses are rendered into one buffer that grows as needed, so nothing is
 * ever cut at a fixed size.  An allocation failure sets FAILED; every later
 * append is then a no-op and the server answers 500 instead of a partial body. */
#ifndef PNA_HTTP_BUF_H
#define PNA_HTTP_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct pna_buf {
    char *data;     /* NUL-terminated when LEN > 0 or after pna_buf_cstr() */
    size_t len, cap;
    bool failed;    /* an allocation failed: the content is incomplete */
};

void pna_buf_init(struct pna_buf *b);
void pna_buf_free(struct pna_buf *b);
void pna_buf_reset(struct pna_buf *b);          /* empty, keeps the memory */

/* Make room for N more bytes; false (and FAILED set) when out of memory. */
bool pna_buf_reserve(struct pna_buf *b, size_t n);

void pna_buf_append(struct pna_buf *b, const char *s, size_t n);
void pna_buf_puts(struct pna_buf *b, const char *s);
void pna_buf_putc(struct pna_buf *b, char c);
void pna_buf_printf(struct pna_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Length of the valid UTF-8 sequence at S (1..4), or 0 when the bytes there
 * are not one (stray continuation, overlong form, surrogate, past U+10FFFF). */
size_t pna_utf8_seq_len(const unsigned char *s);

/* Append S with every byte that is not part of valid UTF-8 replaced by '?'
 * (JSON and the Prometheus format both refuse invalid UTF-8). */
void pna_buf_put_utf8(struct pna_buf *b, const char *s);

/* The content as a C string ("" when empty). */
const char *pna_buf_cstr(struct pna_buf *b);

/* Hand the memory to the caller (free() it); the buffer is left empty. */
char *pna_buf_steal(struct pna_buf *b, size_t *len);

#endif
