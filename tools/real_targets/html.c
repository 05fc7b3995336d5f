/* libxml2's HTML parser over a document from memory, as its own fuzz/html.c does without the
 * extras: a harness of another format that real XML and XHTML files also reach. */
#include <libxml/HTMLparser.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init;
    if (!init) {
        xmlInitParser();
        xmlSetGenericErrorFunc(NULL, NULL);
        init = 1;
    }
    htmlDocPtr doc = htmlReadMemory((const char *)data, (int)size, "input.html", NULL,
                                    HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
    xmlFreeDoc(doc);
    return 0;
}
