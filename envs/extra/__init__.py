"""Extra! (Sid Sackson): every player splits the same throw of five dice into two pairs and an EXTRA die."""
