"""The OpenAPI 3.1 parameter style table, shared by the unit and end-to-end serialization tests."""

EMPTY, STRING, ARRAY, OBJECT = "", "blue", ["blue", "black", "brown"], {"R": 100, "G": 200, "B": 150}

# (style, explode) -> serialized empty, string, array, object, exactly as the OpenAPI 3.1 table (with
# RFC 3986 percent-encoding of the characters the table shows raw).
PATH_TABLE = {
    ("matrix", False): (";color", ";color=blue", ";color=blue,black,brown", ";color=R,100,G,200,B,150"),
    ("matrix", True): (";color", ";color=blue", ";color=blue;color=black;color=brown", ";R=100;G=200;B=150"),
    ("label", False): (".", ".blue", ".blue,black,brown", ".R,100,G,200,B,150"),
    ("label", True): (".", ".blue", ".blue.black.brown", ".R=100.G=200.B=150"),
    ("simple", False): ("", "blue", "blue,black,brown", "R,100,G,200,B,150"),
    ("simple", True): ("", "blue", "blue,black,brown", "R=100,G=200,B=150"),
}
QUERY_TABLE = {
    ("form", False): ("color=", "color=blue", "color=blue,black,brown", "color=R,100,G,200,B,150"),
    ("form", True): ("color=", "color=blue", "color=blue&color=black&color=brown", "R=100&G=200&B=150"),
    ("spaceDelimited", False): (
        None,
        None,
        "color=blue%20black%20brown",
        "color=R%20100%20G%20200%20B%20150",
    ),
    ("pipeDelimited", False): (None, None, "color=blue%7Cblack%7Cbrown", "color=R%7C100%7CG%7C200%7CB%7C150"),
    ("deepObject", True): (None, None, None, "color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150"),
}
