"""Where a chapter page's Colab and Binder links to its exercise go: after the block that
holds the exercise's link, never between a sentence and the code block or list it
introduces."""

from __future__ import annotations

from docutils import nodes

from booktools.open_links import insert_after_its_block


def _links() -> nodes.paragraph:
    return nodes.paragraph(text="The exercise: Open in Colab · Open in Binder")


def test_the_links_follow_the_code_block_the_exercise_links_sentence_introduces():
    section = nodes.section()
    sentence = nodes.paragraph(text="Download it, or check it from a terminal:")
    command = nodes.literal_block(text="python -m autograder check exercise.ipynb")
    after = nodes.paragraph(text="The next section.")
    section += [sentence, command, after]
    links = _links()
    insert_after_its_block(sentence, links)
    assert section.children == [sentence, command, links, after]


def test_the_links_follow_the_list_whose_item_links_the_exercise():
    section = nodes.section()
    item = nodes.paragraph(text="Download the exercise.")
    listed = nodes.bullet_list(
        "", nodes.list_item("", item), nodes.list_item("", nodes.paragraph())
    )
    after = nodes.paragraph(text="The next section.")
    section += [listed, after]
    links = _links()
    insert_after_its_block(item, links)
    assert section.children == [listed, links, after]
