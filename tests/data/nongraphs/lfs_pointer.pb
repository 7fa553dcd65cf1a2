version https://git-lfs.github.com/spec/v1
oid sha256:abababababababababababababababababababababababababababababababab
size 123456789
