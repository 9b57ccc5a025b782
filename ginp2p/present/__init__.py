"""Text for people: the words for moves, results and rules, the parsing of what a
player types, and the plain-data views of a table that the console draws. Pure; imports
only the rules and the protocol."""
