/* libxml2: parse a document from memory, as its own fuzz/xml.c does without the extras. */
#include <libxml/parser.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init;
    if (!init) {
        xmlInitParser();
        xmlSetGenericErrorFunc(NULL, NULL);
        init = 1;
    }
    xmlDocPtr doc = xmlReadMemory((const char *)data, (int)size, "input.xml", NULL,
                                  XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NONET);
    xmlFreeDoc(doc);
    return 0;
}
