module kvparity

go 1.26.8
