/* http/buf.c -- the growable response buffer (see buf.h). */
#include "pna_autoconf.h"
#include "http/buf.h"
#include "util/array.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pna_buf_init(struct pna_buf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = false;
}

void pna_buf_free(struct pna_buf *b)
{
    free(b->data);
    pna_buf_init(b);
}

void pna_buf_reset(struct pna_buf *b)
{
    b->len = 0;
    b->failed = false;
    if (b->data)
        b->data[0] = '\0';
}

bool pna_buf_reserve(struct pna_buf *b, size_t n)
{
    if (b->failed)
        return false;
    /* +1 keeps room for the terminating NUL. */
    if (n >= SIZE_MAX / 2 - b->len) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return true;
    /* A first block of 4 KiB (few responses are smaller), then doubling. */
    if (PNA_ARRAY_RESERVE(b->data, b->cap, need < 4096 ? 4096 : need) != 0) {
        b->failed = true;
        return false;
    }
    return true;
}

void pna_buf_append(struct pna_buf *b, const char *s, size_t n)
{
    if (!pna_buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void pna_buf_puts(struct pna_buf *b, const char *s)
{
    pna_buf_append(b, s, strlen(s));
}

void pna_buf_putc(struct pna_buf *b, char c)
{
    pna_buf_append(b, &c, 1);
}

void pna_buf_printf(struct pna_buf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->cap > b->len ? b->cap - b->len : 0;
    int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n >= room) {
        /* Did not fit: grow and format again. */
        if (!pna_buf_reserve(b, (size_t)n))
            return;
        va_start(ap, fmt);
        vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

const char *pna_buf_cstr(struct pna_buf *b)
{
    return b->data && b->len ? b->data : "";
}

char *pna_buf_steal(struct pna_buf *b, size_t *len)
{
    char *p = b->data;
    if (len)
        *len = b->len;
    pna_buf_init(b);
    return p;
}

/* Length of the valid UTF-8 sequence at S (1..4), or 0 when it is not one. */
size_t pna_utf8_seq_len(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    /* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void pna_buf_put_utf8(struct pna_buf *b, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        const unsigned char *run = u;
        while (*u && *u < 0x80)
            u++;
        pna_buf_append(b, (const char *)run, (size_t)(u - run));
        if (!*u)
            break;
        size_t n = pna_utf8_seq_len(u);
        if (n) {
            pna_buf_append(b, (const char *)u, n);
            u += n;
        } else {
            pna_buf_putc(b, '?');
            u++;
        }
    }
}
