/* json-c: tokenize a document and print it back, as json-c's own fuzz/tokener_parse_ex_fuzzer. */
#include <json.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_tokener *tok = json_tokener_new();
    json_object *obj = json_tokener_parse_ex(tok, (const char *)data, (int)size);
    if (obj) {
        json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY);
        json_object_put(obj);
    }
    json_tokener_free(tok);
    return 0;
}
