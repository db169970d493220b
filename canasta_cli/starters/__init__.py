"""Starter bots written by ``canasta kit init`` (one per language), and the JavaScript kit
(``canasta_kit.js``, a link to bots/canasta_kit.js in a checkout, a copy in a wheel)."""
