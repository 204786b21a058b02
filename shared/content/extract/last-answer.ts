/**
 * A pattern's test that remembers its last text and answer: the cleaning asks its label patterns
 * about every small block, and a page of alike blocks (a flood of one-word paragraphs) asks the
 * same text hundreds of thousands of times; a long case-insensitive alternation costs about
 * 20–60 ns to fail even on one character, the comparison with the last text a few.
 */

/**
 * `pattern.test` with the last text and its answer remembered. Exact: a pattern without the `g`
 * or `y` flag keeps no state between tests, so its answer depends on the text alone (one with
 * either flag is refused, since its `lastIndex` moves).
 */
export function rememberLastAnswer(pattern: RegExp): (text: string) => boolean {
  if (pattern.global || pattern.sticky) throw new Error(`rememberLastAnswer: ${String(pattern)} keeps state between tests`);
  let lastText: string | null = null;
  let lastAnswer = false;
  return (text) => {
    if (text !== lastText) {
      lastAnswer = pattern.test(text);
      lastText = text;
    }
    return lastAnswer;
  };
}
