// graph/visible_text.h: what reaches a terminal or a document shows its
// control characters and stray bytes as escapes, and nothing else changes.
#include <doctest/doctest.h>

#include <string>

#include "graph/visible_text.h"

using pt::Newlines;
using pt::visible_text;

TEST_CASE("visible_text: C0, DEL, C1 and bytes that are not UTF-8 become escapes") {
  CHECK(visible_text("g\x1b[31m.pb") == "g\\x1b[31m.pb");
  CHECK(visible_text("a\x7f" "b") == "a\\x7fb");
  CHECK(visible_text("csi\xc2\x9b" "2J") == "csi\\u009b2J");
  CHECK(visible_text("\xc2\x80\xc2\x9f") == "\\u0080\\u009f");
  CHECK(visible_text("bad\xff") == "bad\\xff");
  CHECK(visible_text("cut\xc2") == "cut\\xc2");
  CHECK(visible_text(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(visible_text("one\ntwo\r\tthree") == "one\\ntwo\\r\\tthree");
}

TEST_CASE("visible_text: printable text, backslashes and UTF-8 stay as they are") {
  for (const std::string s : {"", "relu_3", "a\\x1b already escaped", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82",
                              "nbsp\xc2\xa0", "L['h'][0].attn"}) {
    CAPTURE(s);
    CHECK(visible_text(s) == s);
  }
}

TEST_CASE("make_visible: documents keep their newlines; a clean text is left alone") {
  std::string doc = "line 1\nsource: g\x1b.pb\n";
  pt::make_visible(doc, Newlines::Keep);
  CHECK(doc == "line 1\nsource: g\\x1b.pb\n");
  std::string clean = "no controls\nhere\n";
  const char* before = clean.data();
  pt::make_visible(clean, Newlines::Keep);
  CHECK(clean == "no controls\nhere\n");
  CHECK(clean.data() == before);
  CHECK(visible_text("a\nb", Newlines::Keep) == "a\nb");
}
