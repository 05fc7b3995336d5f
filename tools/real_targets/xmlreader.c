/* libxml2's streaming reader over a document from memory, node by node, as its own fuzz/reader.c
 * walks one: a second harness of the XML format beside xml.c. */
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init;
    if (!init) {
        xmlInitParser();
        xmlSetGenericErrorFunc(NULL, NULL);
        init = 1;
    }
    xmlTextReaderPtr r = xmlReaderForMemory((const char *)data, (int)size, "input.xml", NULL,
                                            XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                                                XML_PARSE_NONET);
    if (!r)
        return 0;
    while (xmlTextReaderRead(r) == 1) {
        (void)xmlTextReaderNodeType(r);
        (void)xmlTextReaderConstName(r);
        (void)xmlTextReaderConstValue(r);
        while (xmlTextReaderMoveToNextAttribute(r) == 1)
            (void)xmlTextReaderConstValue(r);
    }
    xmlFreeTextReader(r);
    return 0;
}
