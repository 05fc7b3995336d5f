/* libpng: decode a whole image from memory through the sequential read API: the header, the
 * transformations to 8-bit RGBA a viewer asks for, every row of every pass, and the chunks after
 * the image. libpng's errors longjmp back here. */
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct source {
    const uint8_t *data;
    size_t size, at;
};

static void read_bytes(png_structp png, png_bytep out, png_size_t n)
{
    struct source *s = png_get_io_ptr(png);
    if (n > s->size - s->at)
        png_error(png, "read past the end");
    memcpy(out, s->data + s->at, n);
    s->at += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8 || png_sig_cmp(data, 0, 8))
        return 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep row = NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return 0;
    }
    struct source src = {data, size, 0};
    if (setjmp(png_jmpbuf(png))) {
        free(row);
        png_destroy_read_struct(&png, &info, NULL);
        return 0;
    }
    png_set_read_fn(png, &src, read_bytes);
    png_set_user_limits(png, 4096, 4096);
    png_set_chunk_malloc_max(png, 8u << 20);
    png_read_info(png, info);
    png_uint_32 w, h;
    int depth, color, interlace;
    png_get_IHDR(png, info, &w, &h, &depth, &color, &interlace, NULL, NULL);
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    row = malloc(png_get_rowbytes(png, info));
    for (int p = 0; row && p < passes; p++)
        for (png_uint_32 y = 0; y < h; y++)
            png_read_row(png, row, NULL);
    png_read_end(png, info);
    free(row);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}
