/* cJSON: parse a document (the bytes need not end in a NUL), print it back formatted and
 * unformatted, and walk its top level, as a program reading a configuration does. */
#include <cJSON.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *json = cJSON_ParseWithLength((const char *)data, size);
    if (!json)
        return 0;
    char *text = cJSON_Print(json);
    free(text);
    text = cJSON_PrintUnformatted(json);
    free(text);
    for (const cJSON *item = json->child; item; item = item->next)
        if (cJSON_IsString(item) || cJSON_IsNumber(item))
            (void)cJSON_GetStringValue(item);
    cJSON_Delete(json);
    return 0;
}
