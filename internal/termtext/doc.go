// Package termtext turns raw terminal output into clean text for an AI agent.
//
// Programs write for a human looking at a terminal: colours, titles, mode
// switches and progress bars redrawn in place with carriage returns. An agent
// reading the byte stream would see that as noise, so [Clean] drops the
// escape sequences and replays the line-local cursor motions, leaving the text
// a human would have seen. [Raw] is the unstripped alternative that only
// guarantees valid UTF-8.
//
// Both functions work on pieces of a stream: with final set to false they
// leave an incomplete trailing escape sequence or UTF-8 character unconsumed,
// and the caller prepends those bytes to its next read. Line state is not
// carried between calls, so a \r overwrite only collapses within one call.
package termtext
