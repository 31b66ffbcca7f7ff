module sigsum.org/sigsum-go

go 1.24.0
