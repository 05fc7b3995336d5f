/* cJSON's other entry points over the same documents: minify a NUL-terminated copy in place, then
 * parse it requiring the document to end there, and look members up by name, as a program that
 * stores compact JSON does: a second harness of the JSON format beside cjson.c. */
#include <cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    cJSON_Minify(copy);
    const char *end = NULL;
    cJSON *json = cJSON_ParseWithOpts(copy, &end, 1);
    if (json) {
        (void)cJSON_GetObjectItemCaseSensitive(json, "version");
        (void)cJSON_GetObjectItem(json, "metadata");
        cJSON_Delete(json);
    }
    free(copy);
    return 0;
}
