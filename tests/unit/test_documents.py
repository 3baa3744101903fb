"""Per-document cache keys: the query text, or the document itself when no text came."""

from graphql import parse

from graph.documents import ByText

TEXT = "{ me { id } }"


def test_documents_of_one_text_share_a_key_and_other_texts_do_not() -> None:
    assert ByText(TEXT, parse(TEXT)) == ByText(TEXT, parse(TEXT))
    assert hash(ByText(TEXT, parse(TEXT))) == hash(ByText(TEXT, parse(TEXT)))
    assert ByText(TEXT, parse(TEXT)) != ByText("{ me { name } }", parse("{ me { name } }"))


def test_without_a_text_a_document_is_keyed_by_its_nodes() -> None:
    assert ByText(None, parse(TEXT)) == ByText(None, parse(TEXT))
    assert ByText(None, parse(TEXT)) != ByText(None, parse("{ me { name } }"))
    assert ByText(None, parse(TEXT)) != ByText(TEXT, parse(TEXT))
